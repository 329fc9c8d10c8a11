import type { z } from 'zod';
import type { Database } from '../../../db/client.js';
import type { App } from '../../../http/route-kit.js';
import type { Clock } from '../../../lib/clock.js';
import type { PlanCatalogue } from '../plans.js';
import type { BillingProvider } from './provider.js';

/** What a provider's factory may use. */
interface BillingProviderDeps {
  database: Database;
  clock: Clock;
  plans: PlanCatalogue;
}

/** The configured provider: its client, and the routes it serves besides the provider-neutral API. */
interface ConfiguredBillingProvider {
  provider: BillingProvider;
  /** Routes in the management face (`/api`), e.g. a webhook. */
  registerRoutes?(app: App): void;
  /** Pages outside the API (the system face), e.g. hosted checkout pages. */
  registerPages?(app: App): void;
}

/** Given to `settings` while the environment is parsed. */
interface ProviderEnvContext {
  /** NODE_ENV=production. */
  production: boolean;
  /** Refuses start-up, naming the variable to fix (reported with every other invalid variable). */
  problem(variable: string, message: string): void;
}

/**
 * One billing provider, in one file, listed once in `providers/index.ts` (docs/billing.md, "Providers").
 * Settings are keyed by the provider's id in `BillingOptions` (`{ provider: 'stripe', stripe: {…} }`).
 */
export interface BillingProviderDefinition<Vars = unknown, Settings = unknown> {
  /** CADRE_BILLING_PROVIDER's value, and what a subscription stores as its provider. */
  readonly id: string;
  /**
   * Activates plans without payment: the subscription answer says `testMode: true` and the server warns at
   * start. Refusing it in production is the provider's own `settings` check.
   */
  readonly testMode: boolean;
  /** Its subscriptions end with their period: nothing renews them and no webhook will say so. */
  readonly endsAtPeriodEnd: boolean;
  /** Its environment variables, validated whichever provider is chosen. */
  readonly env: z.ZodType<Vars>;
  /** Its settings from its variables, when it is the chosen provider; `undefined` after a `problem`. */
  settings(vars: Vars, context: ProviderEnvContext): Settings | undefined;
  create(settings: Settings, deps: BillingProviderDeps): ConfiguredBillingProvider;
}

/** A registry of provider definitions; the first is the default. */
export interface BillingProviders {
  readonly ids: readonly [string, ...string[]];
  readonly defaultId: string;
  readonly definitions: readonly [BillingProviderDefinition, ...BillingProviderDefinition[]];
  find(id: string): BillingProviderDefinition | undefined;
  get(id: string): BillingProviderDefinition;
}

export function createBillingProviders(
  definitions: readonly [BillingProviderDefinition, ...BillingProviderDefinition[]],
): BillingProviders {
  const byId = new Map(definitions.map((definition) => [definition.id, definition]));
  if (byId.size !== definitions.length) throw new Error('two billing providers share an id');
  const ids = definitions.map((definition) => definition.id) as [string, ...string[]];
  return {
    ids,
    defaultId: ids[0],
    definitions,
    find: (id) => byId.get(id),
    get(id) {
      const definition = byId.get(id);
      if (!definition) throw new Error(`unknown billing provider "${id}" (registered: ${ids.join(', ')})`);
      return definition;
    },
  };
}
