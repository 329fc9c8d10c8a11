import type { Database } from '../../db/client.js';
import { countsAsApiRequest } from '../../http/faces.js';
import type { ResponseStep } from '../../http/pipeline.js';
import type { App } from '../../http/route-kit.js';
import type { Clock } from '../../lib/clock.js';
import { createIdempotency } from '../idempotency/index.js';
import type { ProviderCallTimer } from '../metrics/index.js';
import type { TenancyService } from '../tenancy/index.js';
import { createApiRequestQuota } from './api-quota.js';
import { registerBillingRoutes } from './billing.routes.js';
import { createBillingService } from './billing.service.js';
import { registerLimitsAdminRoutes } from './limits-admin.routes.js';
import { createPlanLimits } from './plan-limits.js';
import { createPlanCatalogue, type Plan, type PlanCatalogue } from './plans.js';
import { BILLING_PROVIDERS, type BillingProviders } from './providers/index.js';
import { timedBillingProvider } from './providers/timed.js';
import { createApiRequestMeter, type OwnedCounters } from './usage.js';

export type BillingOptions = {
  /** A registered provider's id (CADRE_BILLING_PROVIDER); default: the registry's first. */
  provider?: string;
  /** The plan catalogue (main.ts: CADRE_PLANS_FILE, replaced on SIGHUP); default: the built-in one. */
  plans?: readonly Plan[] | PlanCatalogue;
  /** How often counted API requests are written (one batched statement per interval). */
  usageFlushMs?: number;
  /** How often an organization's `apiRequests` allowance is read again from the database (ms). */
  apiQuotaRefreshMs?: number;
} & {
  /** The chosen provider's settings under its id (`stripe: {…}`), as its definition's `settings` made them. */
  [providerId: string]: unknown;
};

export interface BillingModuleDeps {
  database: Database;
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization' | 'getUser'>;
  /** Cadre's public origin, for the checkout and portal return URLs (a function: tests learn their port late). */
  publicUrl: () => string;
  onError: (error: unknown) => void;
  options: BillingOptions;
  /** The providers that can be chosen (default: every registered one, providers/index.ts). */
  providers?: BillingProviders;
  /** Times calls to the provider (metrics). */
  providerCall?: ProviderCallTimer;
  /** The counts of API keys, connections and Expert versions, each from the module owning them. */
  counters: OwnedCounters;
}

export type BillingModule = ReturnType<typeof createBillingModule>;

/** Builds billing: the plan catalogue, the configured provider, idempotency, usage metering and routes. */
export function createBillingModule({
  database,
  clock,
  tenancy,
  onError,
  options,
  providers = BILLING_PROVIDERS,
  providerCall,
  publicUrl,
  counters,
}: BillingModuleDeps) {
  const plans =
    options.plans && 'replace' in options.plans ? options.plans : createPlanCatalogue(options.plans);
  const definition = providers.get(options.provider ?? providers.defaultId);
  const configured = definition.create(options[definition.id], { database, clock, plans });
  const provider = providerCall
    ? timedBillingProvider(configured.provider, providerCall)
    : configured.provider;
  const idempotency = createIdempotency({ database, clock });
  const meter = createApiRequestMeter({
    database,
    clock,
    flushIntervalMs: options.usageFlushMs ?? 10_000,
    onError,
  });
  const usage = {
    apiRequests: meter.source,
    expertVersions: counters.expertVersions,
    apiKeys: counters.apiKeys,
    connections: counters.connections,
  };
  const planLimits = createPlanLimits({ plans, clock, usage, providers });
  const quota = createApiRequestQuota({
    database,
    clock,
    planLimits,
    usage: meter.source,
    refreshMs: options.apiQuotaRefreshMs ?? 10_000,
    onError,
  });
  const service = createBillingService({
    database,
    clock,
    tenancy,
    plans,
    provider,
    providers,
    idempotency,
    usage,
    planLimits,
  });
  let sweepTimer: NodeJS.Timeout | undefined;

  return {
    service,
    planLimits,
    provider,
    /** The chosen provider's definition (its test mode: a start-up warning). */
    definition,
    meter,
    /** The usage counters (the events' plan-threshold check reads them). */
    usage,
    idempotency,

    /** Request step (after authentication): refuses an organization's requests past its `apiRequests`. */
    enforceApiQuota: quota.step,

    /**
     * Response step: counts every authenticated management request of an organization (in memory; flushed
     * in batches).
     */
    countUsage: ((request, reply) => {
      // A refusal for going too fast or past the quota (429) is not an API request served.
      if (request.principal && countsAsApiRequest(request) && reply.statusCode !== 429) {
        meter.record(request.principal.organizationId);
      }
    }) satisfies ResponseStep,

    /** The management API's billing routes (in the management face). */
    registerRoutes(app: App) {
      registerBillingRoutes(app, service, { publicUrl });
      configured.registerRoutes?.(app);
    },

    /** Operators' per-organization limits (in the admin face). */
    registerAdminRoutes(app: App) {
      registerLimitsAdminRoutes(app, { tenancy, planLimits, database, onChanged: quota.forget });
    },

    /** The provider's own pages (HTML, outside the API), e.g. the local checkout and portal. */
    registerPages(app: App) {
      configured.registerPages?.(app);
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
