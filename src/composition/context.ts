// What buildApp (src/app.ts) hands back besides the app: the services the routes use, for main.ts, the
// bootstrap and tests to reach.
import type { ChangeBus } from '../db/change-bus.js';
import type { Database } from '../db/client.js';
import type { HealthMonitor } from '../http/overload.js';
import type { ForeignResourceGuard } from '../http/rate-limit/rate-limit.js';
import type { RateLimitStore } from '../http/rate-limit/store.js';
import type { Clock } from '../lib/clock.js';
import type { ApiKeyAuthenticator, ApiKeysService } from '../modules/api-keys/index.js';
import type { BillingModule } from '../modules/billing/index.js';
import type { ConnectionTokens } from '../modules/connections/index.js';
import type { DomainsService } from '../modules/domains/index.js';
import type { IntegrationsService } from '../modules/integrations/index.js';
import type { createKeyRotation } from '../modules/key-rotation/index.js';
import type { Metrics } from '../modules/metrics/index.js';
import type { OAuthService } from '../modules/oauth-flow/index.js';
import type { RegistryService } from '../modules/registry-faces/index.js';
import type { SessionsService } from '../modules/sessions/index.js';
import type { createSsoModule } from '../modules/sso/index.js';
import type { TenancyService } from '../modules/tenancy/index.js';
import type { DeliveryWorker } from '../modules/webhooks/index.js';
import type { Foundations } from './foundations.js';
import type { Modules } from './modules.js';

/** Everything the routes use, built once per app from its dependencies. Tests reach services through it. */
export interface AppContext {
  database: Database;
  clock: Clock;
  bus: ChangeBus;
  authenticator: ApiKeyAuthenticator;
  tenancy: TenancyService;
  apiKeys: ApiKeysService;
  sessions: SessionsService;
  billing: BillingModule;
  integrations: IntegrationsService;
  oauth: OAuthService;
  connectionTokens: ConnectionTokens;
  /** `cadre admin rotate-encryption-key`. */
  reencryptAll: ReturnType<typeof createKeyRotation>['reencryptAll'];
  registry: RegistryService;
  health: HealthMonitor;
  /** Services call it when a request names a Project outside the caller's organization. */
  foreignResources: ForeignResourceGuard;
  rateLimitStore: RateLimitStore;
  metrics: Metrics;
  /** Sends the webhook outbox (absent without a key ring: no endpoint can exist). */
  webhookWorker: DeliveryWorker | undefined;
  /** Single sign-on: the group → role rules (docs/sso.md). */
  sso: Pick<ReturnType<typeof createSsoModule>, 'roleMappings' | 'providers'>;
  /** Verified email domains; `verifiedOrganizationFor` routes sign-in. */
  domains: DomainsService;
}

export function appContext(foundations: Foundations, modules: Modules): AppContext {
  const { database, clock, bus, tenancy, health, foreignResources, rateLimitStore } = foundations;
  const { apiKeys, sessions, billing, oauth, registry, metrics, webhooks, sso, domains } = modules;
  return {
    database,
    clock,
    bus,
    authenticator: apiKeys.authenticator,
    tenancy,
    apiKeys: apiKeys.service,
    sessions: sessions.service,
    billing,
    integrations: oauth.integrations,
    oauth: oauth.oauth,
    connectionTokens: oauth.connectionTokens,
    reencryptAll: oauth.reencryptAll,
    registry: registry.service,
    health,
    foreignResources,
    rateLimitStore,
    metrics,
    webhookWorker: webhooks.worker,
    sso: { roleMappings: sso.roleMappings, providers: sso.providers },
    domains: domains.service,
  };
}
