import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { type ChangeBus, createChangeBus } from './db/change-bus.js';
import type { Database } from './db/client.js';
import { registerAuthentication } from './http/auth.js';
import { registerCsrfProtection } from './http/csrf.js';
import { registerErrorHandling, sendError } from './http/error-handler.js';
import { ApiError } from './http/errors.js';
import { registerRequestLog, registerResponseHeaders } from './http/hooks.js';
import { registerOpenApi } from './http/openapi.js';
import { requestId } from './http/request-id.js';
import type { App } from './http/route-kit.js';
import { type Clock, systemClock } from './lib/clock.js';
import {
  type ApiKeyAuthenticator,
  createApiKeyAuthenticator,
} from './modules/api-keys/api-key-authenticator.js';
import { createApiKeyResolver } from './modules/api-keys/api-key-resolver.js';
import { registerApiKeyRoutes } from './modules/api-keys/api-keys.routes.js';
import { type ApiKeysService, createApiKeysService } from './modules/api-keys/api-keys.service.js';
import {
  type BillingModule,
  type BillingOptions,
  createBillingModule,
} from './modules/billing/billing.module.js';
import { type ConnectionTokens, createConnectionTokens } from './modules/oauth/connection-tokens.js';
import { registerIntegrationAdminRoutes } from './modules/oauth/integrations.routes.js';
import { createIntegrationsService, type IntegrationsService } from './modules/oauth/integrations.service.js';
import { createKeyRotation } from './modules/oauth/key-rotation.js';
import { registerKeyRotationRoute } from './modules/oauth/key-rotation.routes.js';
import { registerOAuthRoutes } from './modules/oauth/oauth.routes.js';
import { createOAuthService, type OAuthService } from './modules/oauth/oauth.service.js';
import type { OAuthHttpOptions } from './modules/oauth/oauth-http.js';
import type { KeyRing } from './modules/oauth/token-vault.js';
import { registerRegistryRoutes } from './modules/registry/registry.routes.js';
import { createRegistryService, type RegistryService } from './modules/registry/registry.service.js';
import {
  createLoginLimiter,
  DEFAULT_LOGIN_LIMITS,
  type LoginLimits,
} from './modules/sessions/login-limiter.js';
import { createSessionResolver } from './modules/sessions/session-resolver.js';
import { registerSessionRoutes } from './modules/sessions/sessions.routes.js';
import { createSessionsService, type SessionsService } from './modules/sessions/sessions.service.js';
import { registerSystemRoutes } from './modules/system/system.routes.js';
import { registerAdminRoutes } from './modules/tenancy/admin.routes.js';
import { createTenancyService, type TenancyService } from './modules/tenancy/tenancy.service.js';

export const VERSION = '0.1.0';

export interface AppDeps {
  database: Database;
  clock?: Clock;
  /** A pino logger, or false for none (tests). */
  logger?: FastifyBaseLogger | false;
  /** Log one line per answered request (default true when a logger is given). */
  logRequests?: boolean;
  /** Enables the admin API when set. */
  adminToken?: string | undefined;
  bodyLimitBytes?: number;
  lastUsedFlushMs?: number;
  /** CADRE_PUBLIC_URL: OAuth redirect_uri origin, local billing pages; https makes cookies Secure. */
  publicUrl?: string | undefined;
  sessionTtlMs?: number;
  loginLimits?: LoginLimits;
  billing?: BillingOptions;
  /** Encrypts OAuth client secrets and tokens; without it OAuth answers 503 (see docs/oauth.md). */
  keyRing?: KeyRing | undefined;
  /** The console's origin (relative returnTo, invalid-state landing); default: publicUrl. */
  consoleUrl?: string | undefined;
  allowedReturnOrigins?: string[];
  /** How OAuth providers are reached (tests allow http on loopback). */
  oauthHttp?: OAuthHttpOptions;
  /** Entries of the registry's per-instance read cache; 0 disables it (benchmarks). */
  registryCacheEntries?: number;
}

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
}

export async function buildApp(deps: AppDeps): Promise<{ app: App; context: AppContext }> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    genReqId: requestId,
    // Fastify logs two lines per request; registerRequestLog writes one, on completion, when enabled.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes ?? 1024 * 1024,
    // Bound how long a slow client may hold a connection while sending its request.
    requestTimeout: 30_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    // Bad URL encoding and the like are answered before routing: keep them in the documented shapes too.
    frameworkErrors: (error, request, reply) => {
      sendError(request, reply, new ApiError('bad_request', error.message));
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const clock = deps.clock ?? systemClock;
  const onError = (error: unknown) => app.log.error({ err: error }, 'background task failed');
  const bus = createChangeBus(deps.database, onError);
  const authenticator = createApiKeyAuthenticator({
    database: deps.database,
    bus,
    clock,
    flushIntervalMs: deps.lastUsedFlushMs ?? 5_000,
    onError,
  });
  const tenancy = createTenancyService({ database: deps.database, bus });
  const apiKeys = createApiKeysService({ database: deps.database, bus, clock, authenticator });
  const sessions = createSessionsService({
    database: deps.database,
    clock,
    limiter: createLoginLimiter(deps.loginLimits ?? DEFAULT_LOGIN_LIMITS, clock),
    ttlMs: deps.sessionTtlMs ?? 12 * 3_600_000,
  });
  const billing = createBillingModule({
    database: deps.database,
    clock,
    tenancy,
    onError,
    options: deps.billing ?? { provider: 'local' },
  });
  const keyRing = () => {
    if (!deps.keyRing) {
      throw new ApiError(
        'service_unavailable',
        'OAuth is not configured: set CADRE_ENCRYPTION_KEYS',
        undefined,
        {
          'Retry-After': '3600',
        },
      );
    }
    return deps.keyRing;
  };
  const oauthHttp = deps.oauthHttp ?? {};
  const publicUrl = () => deps.publicUrl ?? app.listeningOrigin;
  const integrations = createIntegrationsService({
    database: deps.database,
    tenancy,
    keyRing,
    http: oauthHttp,
  });
  const oauth = createOAuthService({
    database: deps.database,
    clock,
    integrations,
    keyRing,
    http: oauthHttp,
    publicUrl,
    consoleUrl: () => deps.consoleUrl ?? publicUrl(),
    allowedReturnOrigins: deps.allowedReturnOrigins ?? [],
  });
  const connectionTokens = createConnectionTokens({
    database: deps.database,
    clock,
    integrations,
    keyRing,
    http: oauthHttp,
  });
  const { reencryptAll } = createKeyRotation(deps.database, keyRing);
  const registry = createRegistryService({
    database: deps.database,
    bus,
    clock,
    tenancy,
    cacheEntries: deps.registryCacheEntries ?? 10_000,
  });
  const context: AppContext = {
    database: deps.database,
    clock,
    bus,
    authenticator,
    tenancy,
    apiKeys,
    sessions,
    billing,
    integrations,
    oauth,
    connectionTokens,
    reencryptAll,
    registry,
  };

  await bus.start();
  authenticator.start();
  billing.start();
  app.addHook('onClose', async () => {
    await billing.stop();
    await authenticator.stop();
    await bus.stop();
  });

  registerErrorHandling(app);
  registerResponseHeaders(app);
  if (deps.logger && deps.logRequests !== false) registerRequestLog(app);
  await app.register(fastifyCookie);
  registerAuthentication(app, {
    resolvers: [createApiKeyResolver(authenticator), createSessionResolver(sessions)],
    adminToken: deps.adminToken,
  });
  registerCsrfProtection(app);
  billing.registerUsageCounting(app);
  await registerOpenApi(app, VERSION);

  registerSystemRoutes(app, deps.database);
  registerApiKeyRoutes(app, apiKeys);
  registerSessionRoutes(app, sessions, { secureCookie: deps.publicUrl?.startsWith('https:') ?? false });
  billing.registerRoutes(app, { publicUrl: deps.publicUrl });
  // Setting a new password ends the user's console sessions (a reset must lock out whoever knew the old one).
  const adminTenancy: TenancyService = {
    ...tenancy,
    setPassword: async (userId, password) => {
      await tenancy.setPassword(userId, password);
      await sessions.revokeAllForUser(userId);
    },
  };
  registerOAuthRoutes(app, oauth);
  registerRegistryRoutes(app, registry);
  if (deps.adminToken) {
    registerAdminRoutes(app, { tenancy: adminTenancy, apiKeys });
    registerIntegrationAdminRoutes(app, integrations);
    registerKeyRotationRoute(app, reencryptAll);
  }

  await app.ready();
  return { app, context };
}
