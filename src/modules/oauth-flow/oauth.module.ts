import type { Database } from '../../db/client.js';
import { serviceUnavailable } from '../../http/errors.js';
import type { ForeignResourceGuard } from '../../http/rate-limit/rate-limit.js';
import type { App } from '../../http/route-kit.js';
import type { Clock } from '../../lib/clock.js';
import type { KeyRing } from '../../lib/key-ring.js';
import type { PlanCheck } from '../billing/index.js';
import {
  createConnectionsService,
  createConnectionTokens,
  createDisconnect,
  registerConnectionRoutes,
} from '../connections/index.js';
import {
  createIntegrationManagement,
  createIntegrationsService,
  registerIntegrationAdminRoutes,
  registerIntegrationManagementRoutes,
} from '../integrations/index.js';
import { createKeyRotation, type OtherSecrets, registerKeyRotationRoute } from '../key-rotation/index.js';
import { type ProviderCallTimer, timedOAuthFetch } from '../metrics/index.js';
import {
  createOAuthSecretRotation,
  type OAuthHttpOptions,
  type OAuthNetworkOptions,
  providerFetch,
} from '../oauth/index.js';
import type { TenancyService } from '../tenancy/index.js';
import { registerOAuthRoutes } from './oauth.routes.js';
import { createOAuthService } from './oauth.service.js';

export interface OAuthModuleDeps {
  database: Database;
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization'>;
  /** Encrypts client secrets and tokens; without it every OAuth operation answers 503 (docs/oauth.md). */
  keyRing: KeyRing | undefined;
  /** Other modules' secrets under the key ring, which `cadre admin rotate-encryption-key` re-encrypts too. */
  otherSecrets: OtherSecrets;
  /** How providers are reached (tests, and CADRE_OAUTH_ALLOW_HTTP_LOOPBACK, allow http on loopback). */
  http: OAuthNetworkOptions | undefined;
  /** Times calls to the providers (metrics). */
  providerCall: ProviderCallTimer;
  /** Cadre's own public origin (redirect_uri); a function because tests learn their port after start-up. */
  publicUrl: () => string;
  /** Where the console lives (relative `returnTo`, the invalid-state landing). */
  consoleUrl: () => string;
  allowedReturnOrigins: readonly string[];
  foreignResources: ForeignResourceGuard;
  /** The plan's `connections` limit, checked in the connecting transaction. */
  planLimits: PlanCheck;
}

/**
 * OAuth: organizations' integrations (registered by the operator in the admin face, or by owners and admins
 * in the management face, verified by a test authorization), the connect flow and disconnecting,
 * the connections' access tokens, and re-encryption under a new key.
 */
export function createOAuthModule(deps: OAuthModuleDeps) {
  const { database, clock, foreignResources } = deps;
  const keyRing = () => {
    if (!deps.keyRing) {
      throw serviceUnavailable('OAuth is not configured: set CADRE_ENCRYPTION_KEYS', 3600, 'not_configured');
    }
    return deps.keyRing;
  };
  const network = deps.http ?? {};
  const http: OAuthHttpOptions = {
    ...network,
    fetch: timedOAuthFetch(providerFetch(network), deps.providerCall),
  };
  const integrations = createIntegrationsService({ database, tenancy: deps.tenancy, keyRing, http });
  const oauth = createOAuthService({
    planLimits: deps.planLimits,
    database,
    clock,
    integrations,
    keyRing,
    http,
    publicUrl: deps.publicUrl,
    consoleUrl: deps.consoleUrl,
    allowedReturnOrigins: deps.allowedReturnOrigins,
    foreignResources,
  });
  const connectionsService = createConnectionsService({ database, foreignResources });
  const connectionTokens = createConnectionTokens({ database, clock, integrations, keyRing, http });
  const { disconnect, disconnectRow } = createDisconnect({
    database,
    clock,
    integrations,
    keyRing,
    http,
    foreignResources,
  });
  const { reencryptAll } = createKeyRotation(keyRing, {
    ...createOAuthSecretRotation(database),
    ...deps.otherSecrets,
  });
  const management = createIntegrationManagement({
    database,
    clock,
    tenancy: deps.tenancy,
    integrations,
    disconnectRow,
    keyRing,
  });
  return {
    integrations,
    oauth,
    connectionTokens,
    /** Disconnects a locked connection in the caller's transaction (cascading deletes of its owners). */
    disconnectRow,
    /** `cadre admin rotate-encryption-key` and the admin route. */
    reencryptAll,
    /** The connect and verification flows, disconnecting, managing integrations (management face). */
    registerRoutes(app: App) {
      registerOAuthRoutes(app, oauth);
      registerConnectionRoutes(app, { connections: connectionsService, disconnect });
      registerIntegrationManagementRoutes(app, management);
    },
    /** Integrations and key rotation (admin face). */
    registerAdminRoutes(app: App) {
      registerIntegrationAdminRoutes(app, integrations);
      registerKeyRotationRoute(app, reencryptAll);
    },
  };
}
