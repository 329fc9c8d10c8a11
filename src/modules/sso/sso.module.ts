import type { Database } from '../../db/client.js';
import type { CookieOptions } from '../../http/cookies.js';
import type { OwnBudgetCheck } from '../../http/rate-limit/rate-limit.js';
import type { App } from '../../http/route-kit.js';
import type { Clock } from '../../lib/clock.js';
import type { KeyRing } from '../../lib/key-ring.js';
import type { SessionsService } from '../sessions/index.js';
import type { TenancyService } from '../tenancy/index.js';
import { createClientSecretRotation } from './client-secret-rotation.js';
import { createDiscoveryCache } from './discovery-cache.js';
import { createOidcClient, type SsoNetworkOptions } from './oidc-client.js';
import { createProviderService } from './provider.service.js';
import { registerRoleMappingRoutes } from './role-mappings.routes.js';
import { createRoleMappingsService } from './role-mappings.service.js';
import { createSignInService, type VerifiedDomains } from './sign-in.service.js';
import { registerProviderRoutes, registerSignInRoutes } from './sso.routes.js';

export interface SsoModuleDeps {
  database: Database;
  clock: Clock;
  keyRing: KeyRing | undefined;
  /** CADRE_SSO_ALLOWED_PRIVATE_HOSTS and the request deadline (docs/sso.md, "Network"). */
  network: SsoNetworkOptions;
  tenancy: Pick<
    TenancyService,
    'getOrganization' | 'findUserByEmail' | 'getMembership' | 'addMember' | 'setRole' | 'organizationSlug'
  >;
  sessions: Pick<SessionsService, 'startSession'>;
  domains: VerifiedDomains;
  publicUrl: () => string;
  consoleUrl: () => string;
  /** The console session cookie's attributes (the callback sets it as a password sign-in does). */
  sessionCookie: CookieOptions;
  /** Counts sign-in starts against their own budget per client address (docs/sso.md, "Signing in"). */
  rateLimit: OwnBudgetCheck;
}

/** Single sign-on through an organization's identity provider (docs/sso.md). */
export function createSsoModule(deps: SsoModuleDeps) {
  const client = createOidcClient(deps.network);
  const discovery = createDiscoveryCache({ discover: client.discover, clock: deps.clock });
  // Sign-ins read the kept discovery documents; only saving the provider reads one afresh.
  const oidc = { ...client, discover: discovery.discover };
  const roleMappings = createRoleMappingsService(deps);
  const providers = createProviderService({ ...deps, discovery });
  const signIns = createSignInService({ ...deps, oidc, providers, roleMappings });
  const routeOptions = {
    secureCookie: deps.sessionCookie.secure,
    consoleUrl: deps.consoleUrl,
    rateLimit: deps.rateLimit,
  };
  return {
    roleMappings,
    providers,
    signIns,
    /** The client secrets, for the key rotation (`cadre admin rotate-encryption-key`). */
    clientSecrets: createClientSecretRotation(deps.database),
    /** Management routes (`/api/v1/sso/…`). */
    registerRoutes(app: App) {
      registerRoleMappingRoutes(app, roleMappings);
      registerProviderRoutes(app, providers, signIns, routeOptions);
    },
    /** Sign-in routes (`/auth/sso/…`). */
    registerAuthRoutes(app: App) {
      registerSignInRoutes(app, signIns, { ...routeOptions, sessionCookie: deps.sessionCookie });
    },
  };
}
