import type { Database } from '../../db/client.js';
import { createIdempotency } from '../../http/idempotency.js';
import type { ResponseStep } from '../../http/pipeline.js';
import type { App } from '../../http/route-kit.js';
import type { Clock } from '../../lib/clock.js';
import { timedBillingProvider } from '../metrics/instrument.js';
import type { ProviderCallTimer } from '../metrics/metrics.js';
import type { TenancyService } from '../tenancy/tenancy.service.js';
import { type BillingRouteOptions, registerBillingRoutes } from './billing.routes.js';
import { createBillingService } from './billing.service.js';
import { registerLimitsAdminRoutes } from './limits-admin.routes.js';
import { registerLocalBillingPages } from './local-pages.routes.js';
import { createPlanLimits } from './plan-limits.js';
import { createPlanCatalogue, type Plan } from './plans.js';
import { createLocalProvider } from './providers/local.js';
import type { BillingProvider } from './providers/provider.js';
import { createStripeClient, createStripeProvider, type StripeSettings } from './providers/stripe.js';
import { registerStripeWebhookRoute } from './stripe-webhook.routes.js';
import { createStripeWebhookHandler } from './stripe-webhooks.js';
import {
  activeApiKeysSource,
  connectionsSource,
  createApiRequestMeter,
  expertVersionsSource,
} from './usage.js';

export type BillingOptions = ({ provider: 'local' } | { provider: 'stripe'; stripe: StripeSettings }) & {
  plans?: readonly Plan[];
  /** How often counted API requests are written (one batched statement per interval). */
  usageFlushMs?: number;
  /**
   * Counters owned by other modules. The registry provides `expertVersions` (versions published in the
   * period) and OAuth provides `connections` (current connections); until wired, they read 0.
   */
};

export interface BillingModuleDeps {
  database: Database;
  clock: Clock;
  tenancy: TenancyService;
  onError: (error: unknown) => void;
  options: BillingOptions;
  /** Times calls to the provider (metrics). */
  providerCall?: ProviderCallTimer;
}

export type BillingModule = ReturnType<typeof createBillingModule>;

/** Builds billing: the plan catalogue, the configured provider, idempotency, usage metering and routes. */
export function createBillingModule({
  database,
  clock,
  tenancy,
  onError,
  options,
  providerCall,
}: BillingModuleDeps) {
  const plans = createPlanCatalogue(options.plans);
  const local = createLocalProvider({ database, clock, plans });
  const stripe = options.provider === 'stripe' ? createStripeClient(options.stripe) : undefined;
  const chosen: BillingProvider =
    options.provider === 'stripe' && stripe ? createStripeProvider(stripe, options.stripe) : local.provider;
  const provider = providerCall ? timedBillingProvider(chosen, providerCall) : chosen;
  const idempotency = createIdempotency({ database, clock });
  const meter = createApiRequestMeter({
    database,
    clock,
    flushIntervalMs: options.usageFlushMs ?? 10_000,
    onError,
  });
  const usage = {
    apiRequests: meter.source,
    expertVersions: expertVersionsSource(database),
    apiKeys: activeApiKeysSource(database, clock),
    connections: connectionsSource(database),
  };
  const planLimits = createPlanLimits({ plans, clock, usage });
  const service = createBillingService({
    database,
    clock,
    tenancy,
    plans,
    provider,
    idempotency,
    usage,
    planLimits,
  });
  const webhooks =
    options.provider === 'stripe' && stripe && options.stripe.webhookSecret
      ? createStripeWebhookHandler({
          stripe,
          database,
          clock,
          secret: options.stripe.webhookSecret,
          toleranceSeconds: options.stripe.webhookToleranceSeconds ?? 300,
          prices: options.stripe.prices,
        })
      : undefined;
  let sweepTimer: NodeJS.Timeout | undefined;

  return {
    service,
    planLimits,
    provider,
    local,
    meter,
    idempotency,
    webhooks,

    /**
     * Response step: counts every authenticated management request of an organization (in memory; flushed
     * in batches).
     */
    countUsage: ((request) => {
      if (request.principal && request.routeConfig.countUsage) meter.record(request.principal.organizationId);
    }) satisfies ResponseStep,

    /** The management API's billing routes (in the management face). */
    registerRoutes(app: App, routeOptions: BillingRouteOptions) {
      registerBillingRoutes(app, service, routeOptions);
      if (webhooks) registerStripeWebhookRoute(app, webhooks);
    },

    /** Operators' per-organization limits (in the admin face). */
    registerAdminRoutes(app: App) {
      registerLimitsAdminRoutes(app, { tenancy, planLimits, database });
    },

    /** The local provider's checkout and portal pages (HTML, outside the API). */
    registerPages(app: App) {
      if (provider.name === 'local') registerLocalBillingPages(app, local);
    },

    start() {
      meter.start();
      sweepTimer = setInterval(() => void idempotency.sweep().catch(onError), 15 * 60_000);
      sweepTimer.unref();
    },
    async stop() {
      if (sweepTimer) clearInterval(sweepTimer);
      await meter.stop();
    },
  };
}
