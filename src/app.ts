import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { type ChangeBus, createChangeBus } from './db/change-bus.js';
import type { Database } from './db/client.js';
import { registerAuthentication } from './http/auth.js';
import { answerClientError } from './http/client-errors.js';
import { type ConcurrencyOptions, createConcurrencyLimit, DEFAULT_CONCURRENCY } from './http/concurrency.js';
import { registerCsrfProtection } from './http/csrf.js';
import { registerErrorHandling, sendError } from './http/error-handler.js';
import { ApiError, serviceUnavailable } from './http/errors.js';
import { FACES, type Face, faceOfUnroutedPath, registerFace } from './http/faces.js';
import { registerCloseOnShutdown, requestLogStep, setResponseHeaders } from './http/hooks.js';
import { lazyChildLogger } from './http/logger.js';
import { registerOpenApi } from './http/openapi.js';
import {
  createHealthMonitor,
  DEFAULT_OVERLOAD,
  type HealthMonitor,
  type OverloadOptions,
  registerOverloadProtection,
} from './http/overload.js';
import { registerRequestPipeline } from './http/pipeline.js';
import {
  createAuthFailureLimit,
  createForeignResourceGuard,
  createRateLimitStep,
  DEFAULT_RATE_LIMITS,
  type ForeignResourceGuard,
  type ForeignResourceOptions,
  type RateLimitOptions,
} from './http/rate-limit/rate-limit.js';
import { createMemoryStore, type RateLimitStore } from './http/rate-limit/store.js';
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
import { registerAuditRoutes } from './modules/audit/audit.routes.js';
import { createAuditService } from './modules/audit/audit.service.js';
import {
  type BillingModule,
  type BillingOptions,
  createBillingModule,
} from './modules/billing/billing.module.js';
import type { PlanCheck } from './modules/billing/plan-limits.js';
import type { BillingProviders } from './modules/billing/providers/index.js';
import { consoleNotFoundPage, registerConsoleRoutes } from './modules/console/console.routes.js';
import { DEFAULT_CONSOLE_DIR, loadConsoleShell } from './modules/console/console-assets.js';
import { timedOAuthFetch } from './modules/metrics/instrument.js';
import { createMetrics, disabledMetrics, type Metrics } from './modules/metrics/metrics.js';
import { registerMetricsRoute } from './modules/metrics/metrics.routes.js';
import { type ConnectionTokens, createConnectionTokens } from './modules/oauth/connection-tokens.js';
import { registerConnectionRoutes } from './modules/oauth/connections.routes.js';
import { createDisconnect } from './modules/oauth/disconnect.js';
import { registerIntegrationAdminRoutes } from './modules/oauth/integrations.routes.js';
import { createIntegrationsService, type IntegrationsService } from './modules/oauth/integrations.service.js';
import { createKeyRotation } from './modules/oauth/key-rotation.js';
import { registerKeyRotationRoute } from './modules/oauth/key-rotation.routes.js';
import { registerOAuthRoutes } from './modules/oauth/oauth.routes.js';
import { createOAuthService, type OAuthService } from './modules/oauth/oauth.service.js';
import type { OAuthHttpOptions } from './modules/oauth/oauth-http.js';
import type { KeyRing } from './modules/oauth/token-vault.js';
import { registerOrganizationRoutes } from './modules/organization/organization.routes.js';
import { createOrganizationService } from './modules/organization/organization.service.js';
import { registerRegistryRoutes } from './modules/registry/registry.routes.js';
import { createRegistryService, type RegistryService } from './modules/registry/registry.service.js';
import { registerRegistryAdminRoutes } from './modules/registry/registry-admin.routes.js';
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

const VERSION = '0.1.0';

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
  /** The billing providers that can be chosen (default: every registered one; tests add their own). */
  billingProviders?: BillingProviders;
  /** Encrypts OAuth client secrets and tokens; without it OAuth answers 503 (see docs/oauth.md). */
  keyRing?: KeyRing | undefined;
  /** The console's origin (relative returnTo, invalid-state landing); default: publicUrl. */
  consoleUrl?: string | undefined;
  allowedReturnOrigins?: string[];
  /** How OAuth providers are reached (tests allow http on loopback). */
  oauthHttp?: OAuthHttpOptions;
  /** Entries of the registry's per-instance read cache; 0 disables it (benchmarks). */
  registryCacheEntries?: number;
  /** Rate limits (defaults: DEFAULT_RATE_LIMITS); tests pass small ones. */
  rateLimits?: Partial<RateLimitOptions>;
  /** In-flight limits per credential and per organization (defaults: DEFAULT_CONCURRENCY). */
  concurrency?: Partial<ConcurrencyOptions>;
  /** Shared counters (Redis) for rate limits; an in-memory store of this app by default. */
  rateLimitStore?: RateLimitStore;
  foreignResources?: Partial<ForeignResourceOptions>;
  overload?: Partial<OverloadOptions>;
  /** Fastify `trustProxy`: behind a load balancer, so `request.ip` is the client's. */
  trustProxy?: boolean | string[];
  /**
   * Prometheus metrics (on by default): `token` guards /metrics on the main port (else loopback only);
   * `separatePort` leaves /metrics off the main port (main.ts serves it on CADRE_METRICS_PORT);
   * `processMetrics` adds Node's process metrics (once per process).
   */
  metrics?: {
    enabled?: boolean;
    token?: string | undefined;
    separatePort?: boolean;
    processMetrics?: boolean;
  };
  /** The built web console (default: dist/console); false serves no console at all. */
  consoleDir?: string | false;
  /** Slow-client bounds: headers, whole request, idle keep-alive (ms). */
  timeouts?: { headersMs?: number; requestMs?: number; keepAliveMs?: number };
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
  health: HealthMonitor;
  /** Services call it when a request names a Project outside the caller's organization. */
  foreignResources: ForeignResourceGuard;
  rateLimitStore: RateLimitStore;
  metrics: Metrics;
}

export async function buildApp(deps: AppDeps): Promise<{ app: App; context: AppContext }> {
  const timeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 72_000, ...deps.timeouts };
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    genReqId: requestId,
    childLoggerFactory: lazyChildLogger,
    // Fastify logs two lines per request; requestLogStep writes one, on completion, when enabled.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes ?? 1024 * 1024,
    // Bound how long a slow client may hold a connection while sending its request (slowloris): headers
    // within headersMs, the whole request within requestMs, checked every second.
    requestTimeout: Math.max(timeouts.requestMs, timeouts.headersMs),
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: timeouts.headersMs,
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs),
    },
    ...(deps.trustProxy !== undefined ? { trustProxy: deps.trustProxy } : {}),
    // While draining, registerOverloadProtection answers 503 in the documented shape, with Retry-After.
    return503OnClosing: false,
    // Router-level failures (a malformed URL, a path parameter over maxParamLength) in the documented shape
    // too: Fastify would answer them itself (414 and its own body).
    frameworkErrors: (error, request, reply) => {
      // No route hooks run for these: set what setResponseHeaders would, and never cache them.
      setResponseHeaders(request, reply);
      reply.header('cache-control', 'no-store');
      const shape = faceOfUnroutedPath(request.url).errorShape;
      return sendError(
        request,
        reply,
        new ApiError('bad_request', `Malformed request URL (${error.code})`),
        shape,
      );
    },
    clientErrorHandler: answerClientError,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const clock = deps.clock ?? systemClock;
  const onError = (error: unknown) => app.log.error({ err: error }, 'background task failed');
  const bus = createChangeBus(deps.database, onError);
  const metrics =
    deps.metrics?.enabled === false
      ? disabledMetrics
      : createMetrics({
          version: VERSION,
          database: deps.database,
          eventLoopDelayMs: () => health.eventLoopDelayMs(),
          processMetrics: deps.metrics?.processMetrics ?? false,
        });
  const authenticator = createApiKeyAuthenticator({
    cacheEvents: metrics.apiKeyCache,
    database: deps.database,
    bus,
    clock,
    flushIntervalMs: deps.lastUsedFlushMs ?? 5_000,
    onError,
  });
  const tenancy = createTenancyService({ database: deps.database, bus, clock });
  const rateLimitStore = deps.rateLimitStore ?? createMemoryStore();
  const foreignResources = createForeignResourceGuard({
    store: rateLimitStore,
    clock,
    options: { limit: 20, windowMs: 60_000, ...deps.foreignResources },
    log: () => app.log,
  });
  const overload = { ...DEFAULT_OVERLOAD, ...deps.overload };
  const health = createHealthMonitor({ database: deps.database, options: overload, log: () => app.log });
  // Writes that add to a plan's counter check it in their transaction; billing (built below) owns the plans.
  const planLimits: PlanCheck = {
    assertWithin: (tx, organizationId, counter) =>
      billing.planLimits.assertWithin(tx, organizationId, counter),
  };
  const apiKeys = createApiKeysService({
    planLimits,
    database: deps.database,
    bus,
    clock,
    authenticator,
    foreignResources,
  });
  const sessions = createSessionsService({
    database: deps.database,
    clock,
    limiter: createLoginLimiter(deps.loginLimits ?? DEFAULT_LOGIN_LIMITS, clock),
    ttlMs: deps.sessionTtlMs ?? 12 * 3_600_000,
    passwords: tenancy,
  });
  const billing = createBillingModule({
    database: deps.database,
    clock,
    tenancy,
    onError,
    options: deps.billing ?? {},
    providers: deps.billingProviders,
    providerCall: metrics.providerCall,
  });
  const keyRing = () => {
    if (!deps.keyRing) {
      throw serviceUnavailable('OAuth is not configured: set CADRE_ENCRYPTION_KEYS', 3600, 'not_configured');
    }
    return deps.keyRing;
  };
  const oauthHttp = {
    ...deps.oauthHttp,
    fetch: timedOAuthFetch(deps.oauthHttp?.fetch ?? fetch, metrics.providerCall),
  };
  const publicUrl = () => deps.publicUrl ?? app.listeningOrigin;
  const integrations = createIntegrationsService({
    database: deps.database,
    tenancy,
    keyRing,
    http: oauthHttp,
  });
  const oauth = createOAuthService({
    planLimits,
    database: deps.database,
    clock,
    integrations,
    keyRing,
    http: oauthHttp,
    publicUrl,
    consoleUrl: () => deps.consoleUrl ?? publicUrl(),
    allowedReturnOrigins: deps.allowedReturnOrigins ?? [],
    foreignResources,
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
    planLimits,
    database: deps.database,
    bus,
    clock,
    tenancy,
    cacheEntries: deps.registryCacheEntries ?? 10_000,
    cacheEvents: metrics.registryCache,
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
    health,
    foreignResources,
    rateLimitStore,
    metrics,
  };

  await bus.start();
  authenticator.start();
  billing.start();
  health.start();
  app.addHook('onClose', async () => {
    await billing.stop();
    health.stop();
    await authenticator.stop();
    await bus.stop();
    // A store passed in (Redis) belongs to the caller, who closes it.
    if (!deps.rateLimitStore) await rateLimitStore.close();
  });

  const consoleShell =
    deps.consoleDir === false ? undefined : loadConsoleShell(deps.consoleDir ?? DEFAULT_CONSOLE_DIR);
  registerErrorHandling(app, {
    onDatabaseUnavailable: () => health.reportDatabaseUnavailable(),
    ...(deps.consoleDir === false ? {} : { notFoundPage: consoleNotFoundPage(consoleShell) }),
  });
  registerCloseOnShutdown(app);
  const concurrency = { ...DEFAULT_CONCURRENCY, ...deps.concurrency };
  const concurrencyLimit = concurrency.enabled ? createConcurrencyLimit(concurrency) : undefined;
  const overloadSteps = registerOverloadProtection(app, {
    monitor: health,
    deadlineMs: overload.requestDeadlineMs,
    send: sendError,
    shedByTenant: concurrencyLimit !== undefined,
  });
  const authenticate = registerAuthentication(app, {
    resolvers: [createApiKeyResolver(authenticator), createSessionResolver(sessions)],
    adminToken: deps.adminToken,
  });
  registerCsrfProtection(app);
  const limits = {
    store: rateLimitStore,
    clock,
    options: { ...DEFAULT_RATE_LIMITS, ...deps.rateLimits },
    log: () => app.log,
  };
  const authFailures = createAuthFailureLimit(limits);
  concurrencyLimit?.register(app);
  registerRequestPipeline(app, {
    onRequest: [
      setResponseHeaders,
      // Before authentication (which may query the database): shed load fast, bound every request in time.
      overloadSteps.onRequest,
      // An address guessing credentials is refused before any key lookup.
      authFailures?.gate,
      overloadSteps.shedUnattributed(authenticate),
      // After authentication: requests count against their credential.
      createRateLimitStep(limits),
      // An organization past its plan's API requests for the period is refused (billing routes excepted).
      billing.enforceApiQuota,
      // Then a slot of the credential's, its organization's and the instance's in-flight work (waits briefly,
      // else 429); while overloaded, the heaviest tenants are shed here, once authentication named them.
      concurrencyLimit?.step,
    ],
    onResponse: [
      concurrencyLimit?.release,
      overloadSteps.onResponse,
      authFailures?.count,
      billing.countUsage,
      metrics.requestStep,
      deps.logger && deps.logRequests !== false ? requestLogStep(app) : undefined,
    ],
  });
  await registerOpenApi(app, VERSION);

  // The faces (src/http/faces.ts): each an encapsulated plugin with its prefix, error shape, not-found
  // answer and defaults. Modules register their routes into the face they belong to.
  const errors = { onDatabaseUnavailable: () => health.reportDatabaseUnavailable() };
  const faceErrors = (face: Face) => (scope: App) => registerErrorHandling(scope, errors, face.defaults);
  registerFace(
    app,
    FACES.system,
    () => undefined,
    (scope) => {
      registerSystemRoutes(scope, deps.database, health);
      if (metrics.enabled && !deps.metrics?.separatePort)
        registerMetricsRoute(scope, metrics, deps.metrics?.token);
      billing.registerPages(scope);
    },
  );
  if (deps.consoleDir !== false) {
    registerFace(
      app,
      FACES.console,
      () => undefined,
      (scope) => registerConsoleRoutes(scope, consoleShell),
    );
  }
  registerFace(app, FACES.registry, faceErrors(FACES.registry), (scope) => {
    registerRegistryRoutes(scope, registry);
  });
  registerFace(app, FACES.management, faceErrors(FACES.management), (scope) => {
    registerApiKeyRoutes(scope, apiKeys);
    billing.registerRoutes(scope, { publicUrl });
    registerOAuthRoutes(scope, oauth);
    registerConnectionRoutes(
      scope,
      createDisconnect({
        database: deps.database,
        clock,
        integrations,
        keyRing,
        http: oauthHttp,
        foreignResources,
      }).disconnect,
    );
    registerAuditRoutes(scope, createAuditService({ database: deps.database, tenancy }));
    registerOrganizationRoutes(
      scope,
      createOrganizationService({ database: deps.database, tenancy, integrations }),
    );
  });
  registerFace(app, FACES.auth, faceErrors(FACES.auth), (scope) => {
    registerSessionRoutes(scope, sessions, { secureCookie: deps.publicUrl?.startsWith('https:') ?? false });
  });
  // Without an admin token the admin face has no routes: every /admin path answers its 404.
  registerFace(app, FACES.admin, faceErrors(FACES.admin), (scope) => {
    if (!deps.adminToken) return;
    registerAdminRoutes(scope, { tenancy, apiKeys, resetPassword: sessions.resetPassword });
    billing.registerAdminRoutes(scope);
    registerRegistryAdminRoutes(scope, registry);
    registerIntegrationAdminRoutes(scope, integrations);
    registerKeyRotationRoute(scope, reencryptAll);
  });

  await app.ready();
  return { app, context };
}
