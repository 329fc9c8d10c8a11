import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { connectionsSource, expertVersionsSource } from './composition/usage-counters.js';
import { type ChangeBus, createChangeBus } from './db/change-bus.js';
import type { Database } from './db/client.js';
import { warnOfEmbeddedContention } from './db/embedded/contention-warning.js';
import { registerAuthentication } from './http/auth.js';
import { answerClientError } from './http/client-errors.js';
import { type ConcurrencyOptions, createConcurrencyLimit, DEFAULT_CONCURRENCY } from './http/concurrency.js';
import { registerCsrfProtection } from './http/csrf.js';
import { registerErrorHandling, sendError } from './http/error-handler.js';
import { ApiError } from './http/errors.js';
import { FACES, type Face, faceOfUnroutedPath, registerFace } from './http/faces.js';
import { registerCloseOnShutdown, requestLogStep, setResponseHeaders } from './http/hooks.js';
import { refuseForeignJsonCharsets } from './http/json-charset.js';
import { lazyChildLogger } from './http/logger.js';
import { registerOpenApi } from './http/openapi.js';
import {
  createHealthMonitor,
  DEFAULT_OVERLOAD,
  type HealthMonitor,
  type OverloadOptions,
  registerOverloadProtection,
} from './http/overload.js';
import { registerPathNames } from './http/path-names.js';
import { registerRequestPipeline } from './http/pipeline.js';
import {
  createAuthFailureLimit,
  createForeignResourceGuard,
  createOwnBudgets,
  createRateLimitStep,
  DEFAULT_RATE_LIMITS,
  type ForeignResourceGuard,
  type ForeignResourceOptions,
  type RateLimitOptions,
} from './http/rate-limit/rate-limit.js';
import { createMemoryStore, type RateLimitStore } from './http/rate-limit/store.js';
import { requestId } from './http/request-id.js';
import type { App } from './http/route-kit.js';
import { responseSerializer } from './http/serializer.js';
import { boundTlsServer, type ServedTls, tlsServerOptions } from './http/tls.js';
import { type Clock, systemClock } from './lib/clock.js';
import type { KeyRing } from './lib/key-ring.js';
import { NO_ALLOWANCE } from './lib/outbound/address-policy.js';
import type { ApiKeyAuthenticator } from './modules/api-keys/api-key-authenticator.js';
import { createApiKeysModule } from './modules/api-keys/api-keys.module.js';
import { type ApiKeysService, activeApiKeysSource, revokeUserApiKeys } from './modules/api-keys/index.js';
import { createAuditModule, recordAuditEvent } from './modules/audit/index.js';
import {
  type BillingModule,
  type BillingOptions,
  createBillingModule,
} from './modules/billing/billing.module.js';
import type { BillingProviders } from './modules/billing/providers/index.js';
import { createCliLoginsModule } from './modules/cli-logins/index.js';
import { createConsoleModule } from './modules/console/console.module.js';
import { createDomainsModule, type DomainsModuleDeps, type DomainsService } from './modules/domains/index.js';
import { createEventsModule } from './modules/events/events.module.js';
import { createMcpCatalogModule } from './modules/mcp-catalog/mcp-catalog.module.js';
import { createMembersModule, type SmtpOptions } from './modules/members/index.js';
import type { Metrics } from './modules/metrics/index.js';
import { createMetricsModule } from './modules/metrics/index.js';
import type { ConnectionTokens } from './modules/oauth/connection-tokens.js';
import type { IntegrationsService } from './modules/oauth/integrations.service.js';
import type { createKeyRotation } from './modules/oauth/key-rotation.js';
import { createOAuthModule } from './modules/oauth/oauth.module.js';
import type { OAuthService } from './modules/oauth/oauth.service.js';
import type { OAuthNetworkOptions } from './modules/oauth/oauth-http.js';
import { createOrganizationModule } from './modules/organization/index.js';
import {
  createRegistryModule,
  type RegistryService,
  seedPublishPolicy,
} from './modules/registry-faces/index.js';
import { createScimModule } from './modules/scim/index.js';
import { endUserSessions, type SessionsService } from './modules/sessions/index.js';
import type { LoginLimits } from './modules/sessions/login-limiter.js';
import { createSessionsModule } from './modules/sessions/sessions.module.js';
import { createSsoEnforcement, createSsoModule, type SsoNetworkOptions } from './modules/sso/index.js';
import { type PublishPolicy, policies } from './modules/supply-chain/index.js';
import { createSystemModule } from './modules/system/index.js';
import { createPathNameResolver } from './modules/tenancy/path-names.js';
import { createTenancyService, type TenancyService } from './modules/tenancy/tenancy.service.js';
import { createTenancyAdminModule } from './modules/tenancy-admin/index.js';
import {
  createSigningSecretRotation,
  createWebhooksModule,
  type DeliveryWorker,
  queueLagSeconds,
  type WebhooksModuleDeps,
} from './modules/webhooks/index.js';

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
  /** Webhook deliveries: CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS, and the worker's tuning (docs/webhooks.md). */
  webhooks?: Pick<WebhooksModuleDeps, 'allowedPrivateHosts' | 'worker'>;
  /** The console's origin (relative returnTo, invalid-state landing); default: publicUrl. */
  consoleUrl?: string | undefined;
  /** CADRE_SMTP_URL and CADRE_SMTP_FROM: invitations are also sent by email (docs/organization-api.md). */
  smtp?: SmtpOptions | undefined;
  allowedReturnOrigins?: string[];
  /** How OAuth providers are reached (tests allow http on loopback). */
  oauthHttp?: OAuthNetworkOptions;
  /**
   * Encode every answer through its schema as well, and fail one the schema would change (the test suite;
   * CADRE_CHECK_RESPONSES): src/http/serializer.ts.
   */
  checkResponses?: boolean;
  /** Entries of the registry's per-instance read cache; 0 disables it (benchmarks). */
  registryCacheEntries?: number;
  /** Base-skill names accepted besides Cadre's and Perstack's (CADRE_BASE_SKILL_NAMES, docs/registry.md). */
  baseSkillNames?: readonly string[];
  /** The publish policy new organizations start with (CADRE_PUBLISH_POLICY_DEFAULT, docs/registry.md). */
  publishPolicyDefault?: PublishPolicy | undefined;
  /** The embedded quick start's bootstrap.json (main.ts): the sign-in page's demo-password hint reads it. */
  bootstrapFile?: string;
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
  /** Serve HTTPS (or HTTP/2 with HTTP/1.1) with this certificate; unset: plain HTTP. */
  tls?: ServedTls;
  /** Single sign-on's reach: CADRE_SSO_ALLOWED_PRIVATE_HOSTS and the request deadline (docs/sso.md). */
  sso?: Partial<SsoNetworkOptions>;
  /** Verified domains: the DNS servers (CADRE_DNS_SERVERS), re-check timing (docs/domains.md). */
  domains?: Pick<DomainsModuleDeps, 'proof' | 'recheckAfterMs' | 'lapseAfterFailures' | 'sweepIntervalMs'>;
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
  /** Sends the webhook outbox (absent without a key ring: no endpoint can exist). */
  webhookWorker: DeliveryWorker | undefined;
  /** Single sign-on: the group → role rules (docs/sso.md). */
  sso: Pick<ReturnType<typeof createSsoModule>, 'roleMappings' | 'providers'>;
  /** Verified email domains; `verifiedOrganizationFor` routes sign-in. */
  domains: DomainsService;
}

export async function buildApp(deps: AppDeps): Promise<{ app: App; context: AppContext }> {
  const timeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 72_000, ...deps.timeouts };
  // One access-log line per answer: by the onResponse step, and for answers given before routing (no route
  // hooks run for them) by frameworkErrors and clientErrorHandler.
  const requestLog = deps.logger && deps.logRequests !== false ? deps.logger : undefined;
  const logRequest = requestLog && requestLogStep(requestLog);
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
    // A client whose base URL ends in "/" (Perstack's tools with `perstackApiBaseUrl = "https://host/"`) sends
    // `//api/registry/v1/…`: the path it means, not a path of no face (docs/perstack.md).
    rewriteUrl: (request) => collapseLeadingSlashes(request.url ?? '/'),
    // Router-level failures (a malformed URL, a path parameter over maxParamLength) in the documented shape
    // too: Fastify would answer them itself (414 and its own body).
    frameworkErrors: (error, request, reply) => {
      // No route hooks run for these: set what setResponseHeaders would, and never cache them.
      setResponseHeaders(request, reply);
      reply.header('cache-control', 'no-store');
      const shape = faceOfUnroutedPath(request.url).errorShape;
      sendError(request, reply, new ApiError('bad_request', `Malformed request URL (${error.code})`), shape);
      logRequest?.(request, reply);
    },
    clientErrorHandler: (error, socket) => answerClientError(error, socket, requestLog),
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
    ...(deps.tls ? tlsServerOptions(deps.tls, timeouts.keepAliveMs) : {}),
  }).withTypeProvider<ZodTypeProvider>();
  if (deps.tls) boundTlsServer(app, deps.tls, timeouts);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializer(deps.checkResponses ?? false));

  const clock = deps.clock ?? systemClock;
  const { database } = deps;
  const onError = (error: unknown) => app.log.error({ err: error }, 'background task failed');
  const publicUrl = () => deps.publicUrl ?? app.listeningOrigin;

  // Foundations every module may use: the change bus, the overload monitor, the rate-limit counters and the
  // tenancy service (organizations, members, projects).
  const bus = createChangeBus(database, onError);
  const overload = { ...DEFAULT_OVERLOAD, ...deps.overload };
  const health = createHealthMonitor({ database, options: overload, log: () => app.log });
  const rateLimitStore = deps.rateLimitStore ?? createMemoryStore();
  const rateLimitOptions = { ...DEFAULT_RATE_LIMITS, ...deps.rateLimits };
  // Budgets of their own for SCIM (per organization) and single sign-on starts (per address).
  const ownBudgets = createOwnBudgets({
    store: rateLimitStore,
    clock,
    options: rateLimitOptions,
    log: () => app.log,
  });
  const foreignResources = createForeignResourceGuard({
    store: rateLimitStore,
    clock,
    options: { limit: 20, windowMs: 60_000, ...deps.foreignResources },
    log: () => app.log,
  });
  const tenancy = createTenancyService({
    database,
    bus,
    clock,
    onOrganizationCreated: (tx, organization) =>
      seedPublishPolicy(tx, organization.id, deps.publishPolicyDefault, clock.now()),
    recordAudit: recordAuditEvent,
    credentials: { endSessions: endUserSessions, revokeApiKeys: revokeUserApiKeys },
  });

  // The modules (src/modules/*/<name>.module.ts), each built from what it uses, in dependency order.
  const { metrics, ...metricsModule } = createMetricsModule({
    enabled: deps.metrics?.enabled !== false,
    token: deps.metrics?.token,
    separatePort: deps.metrics?.separatePort ?? false,
    version: VERSION,
    database,
    eventLoopDelayMs: () => health.eventLoopDelayMs(),
    processMetrics: deps.metrics?.processMetrics ?? false,
    ...(rateLimitStore.circuit ? { rateLimitCircuit: () => rateLimitStore.circuit?.() ?? 'closed' } : {}),
  });
  const system = createSystemModule({ database, health });
  const consoleModule = deps.consoleDir === false ? undefined : createConsoleModule({ dir: deps.consoleDir });
  const billing = createBillingModule({
    database,
    clock,
    tenancy,
    onError,
    options: deps.billing ?? {},
    providers: deps.billingProviders,
    providerCall: metrics.providerCall,
    publicUrl,
    counters: {
      expertVersions: expertVersionsSource(database),
      apiKeys: activeApiKeysSource(database, clock),
      connections: connectionsSource(database),
    },
  });
  // Writes that add to a plan's counter check it in their transaction; billing owns the plans.
  const planLimits = billing.planLimits;
  const apiKeys = createApiKeysModule({
    database,
    bus,
    clock,
    flushIntervalMs: deps.lastUsedFlushMs ?? 5_000,
    onError,
    cacheEvents: metrics.apiKeyCache,
    foreignResources,
    planLimits,
  });
  const domains = createDomainsModule({
    database,
    clock,
    ...deps.domains,
    onError: (error) => app.log.warn({ err: error }, 'the verified domains re-check failed'),
  });
  // Before sessions: password sign-in asks it whether single sign-on is enforced for the account's domain.
  const ssoEnforcement = createSsoEnforcement({ database, clock, domains: domains.service });
  const secureCookie = (deps.publicUrl ?? (deps.tls ? 'https:' : 'http:')).startsWith('https:');
  const sessions = createSessionsModule({
    passwordPolicy: ssoEnforcement.passwordPolicy,
    database,
    bootstrapFile: deps.bootstrapFile,
    clock,
    loginLimits: deps.loginLimits,
    store: rateLimitStore,
    ttlMs: deps.sessionTtlMs ?? 12 * 3_600_000,
    passwords: tenancy,
    // Without CADRE_PUBLIC_URL, browsers reach Cadre as it listens: over https when it serves TLS itself.
    secureCookie,
  });
  const tenancyAdmin = createTenancyAdminModule({
    tenancy,
    apiKeys: apiKeys.service,
    sessions: sessions.service,
  });
  const cliLogins = createCliLoginsModule({
    database,
    clock,
    apiKeys: apiKeys.service,
    tenancy,
    consoleUrl: () => deps.consoleUrl ?? publicUrl(),
  });
  const mcpCatalog = createMcpCatalogModule({
    database,
    bus,
    clock,
    tenancy,
    publicUrl,
    reads: metrics.mcpCatalogReads,
    // The organization's publish policy holds versions that widen access for approval, Experts' and servers'.
    approvalRequired: async (executor, organizationId) =>
      (await policies.readPolicy(executor, organizationId)).policy.approvalRequiredForWidening,
    // The registry is made after the catalog (it checks skills against it): reached when a page asks.
    experts: {
      ofOrganization: (organizationId, texts) => registry.catalogUsers.ofOrganization(organizationId, texts),
      ofExpert: (organizationId, name, version) =>
        registry.catalogUsers.ofExpert(organizationId, name, version),
    },
  });
  const registry = createRegistryModule({
    planLimits,
    database,
    bus,
    clock,
    tenancy,
    cacheEntries: deps.registryCacheEntries ?? 10_000,
    cacheEvents: metrics.registryCache,
    baseSkillNames: deps.baseSkillNames,
    catalog: mcpCatalog.service,
  });
  const sso = createSsoModule({
    database,
    clock,
    keyRing: deps.keyRing,
    network: { allowedPrivateHosts: NO_ALLOWANCE, ...deps.sso },
    tenancy,
    sessions: sessions.service,
    domains: domains.service,
    publicUrl,
    consoleUrl: () => deps.consoleUrl ?? publicUrl(),
    sessionCookie: { path: '/', httpOnly: true, sameSite: 'Lax', secure: secureCookie },
    rateLimit: ownBudgets,
  });
  const oauth = createOAuthModule({
    database,
    clock,
    tenancy,
    keyRing: deps.keyRing,
    otherSecrets: {
      webhookEndpoints: createSigningSecretRotation(database),
      ssoProviders: sso.clientSecrets,
    },
    http: deps.oauthHttp,
    providerCall: metrics.providerCall,
    publicUrl,
    consoleUrl: () => deps.consoleUrl ?? publicUrl(),
    allowedReturnOrigins: deps.allowedReturnOrigins ?? [],
    foreignResources,
    planLimits,
  });
  const members = createMembersModule({
    database,
    bus,
    clock,
    tenancy,
    consoleUrl: () => deps.consoleUrl ?? publicUrl(),
    smtp: deps.smtp,
    guesses: sessions.guessBudget,
    invitationPolicy: ssoEnforcement,
    onMailError: (error) => app.log.warn({ err: error }, 'an invitation email could not be sent'),
  });
  const audit = createAuditModule({ database, tenancy });
  const events = createEventsModule({
    database,
    clock,
    entitlement: billing.planLimits.entitlement,
    usage: billing.usage,
    onError: (error) =>
      app.log.warn({ err: error }, 'the expiring-key and plan-threshold events check failed'),
  });
  const webhooks = createWebhooksModule({
    database,
    clock,
    keyRing: deps.keyRing,
    ...deps.webhooks,
    events: metrics.webhookDeliveries,
    onError: (error) => app.log.warn({ err: error }, 'a webhook delivery could not be recorded'),
  });
  metrics.webhookQueueLag(() => queueLagSeconds(database.db, clock.now()));
  const organization = createOrganizationModule({
    database,
    bus,
    clock,
    tenancy,
    integrations: oauth.integrations,
    foreignResources,
    authenticator: apiKeys.authenticator,
    disconnectRow: oauth.disconnectRow,
    sessions: sessions.service,
  });

  const scim = createScimModule({
    database,
    clock,
    tenancy,
    members: members.service,
    domains: domains.service,
    roles: sso.roleMappings,
    publicUrl,
    onDatabaseUnavailable: () => health.reportDatabaseUnavailable(),
    rateLimit: ownBudgets,
  });

  const context: AppContext = {
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

  await bus.start();
  await registry.start();
  apiKeys.start();
  billing.start();
  events.start();
  webhooks.start();
  domains.start();
  health.start();
  app.addHook('onClose', async () => {
    await billing.stop();
    events.stop();
    // In-flight deliveries finish (each within its 10 s timeout) before the database closes.
    await webhooks.stop();
    await domains.stop();
    members.stop();
    health.stop();
    await apiKeys.stop();
    await bus.stop();
    // A store passed in (Redis) belongs to the caller, who closes it.
    if (!deps.rateLimitStore) await rateLimitStore.close();
  });

  registerErrorHandling(app, {
    onDatabaseUnavailable: () => health.reportDatabaseUnavailable(),
    ...(consoleModule ? { notFoundPage: consoleModule.notFoundPage } : {}),
  });
  registerCloseOnShutdown(app);
  const concurrency = { ...DEFAULT_CONCURRENCY, ...deps.concurrency };
  const concurrencyLimit = concurrency.enabled
    ? createConcurrencyLimit(
        concurrency,
        database.contended,
        warnOfEmbeddedContention(database, () => app.log),
      )
    : undefined;
  const overloadSteps = registerOverloadProtection(app, {
    monitor: health,
    deadlineMs: overload.requestDeadlineMs,
    send: sendError,
    shedByTenant: concurrencyLimit !== undefined,
  });
  const authenticate = registerAuthentication(app, {
    resolvers: [apiKeys.resolver, sessions.resolver],
    adminToken: deps.adminToken,
  });
  registerCsrfProtection(app);
  refuseForeignJsonCharsets(app);
  const limits = {
    store: rateLimitStore,
    clock,
    options: rateLimitOptions,
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
      logRequest,
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
      system.registerRoutes(scope);
      metricsModule.registerRoutes(scope);
      billing.registerPages(scope);
    },
  );
  if (consoleModule) {
    registerFace(app, FACES.console, () => undefined, consoleModule.registerRoutes);
  }
  registerFace(app, FACES.registry, faceErrors(FACES.registry), registry.registerRoutes);
  registerFace(app, FACES.perstack, faceErrors(FACES.perstack), registry.registerPerstackRoutes);
  registerFace(
    app,
    FACES.mcp,
    (scope) => {
      faceErrors(FACES.mcp)(scope);
      mcpCatalog.setUpFace(scope);
    },
    mcpCatalog.registerRoutes,
  );
  const pathNames = createPathNameResolver(database);
  const managementFace = (scope: App) => {
    faceErrors(FACES.management)(scope);
    registerPathNames(scope, { ...pathNames, ownOrganizationId: tenancy.ownOrganizationId });
  };
  registerFace(app, FACES.management, managementFace, (scope) => {
    apiKeys.registerRoutes(scope);
    billing.registerRoutes(scope);
    oauth.registerRoutes(scope);
    audit.registerRoutes(scope);
    events.registerRoutes(scope);
    webhooks.registerRoutes(scope);
    organization.registerRoutes(scope);
    members.registerRoutes(scope);
    registry.registerManagementRoutes(scope);
    mcpCatalog.registerManagementRoutes(scope);
    domains.registerRoutes(scope);
    scim.registerManagementRoutes(scope);
    sso.registerRoutes(scope);
  });
  registerFace(app, FACES.auth, faceErrors(FACES.auth), (scope) => {
    sessions.registerRoutes(scope);
    cliLogins.registerRoutes(scope);
    members.registerAuthRoutes(scope);
    sso.registerAuthRoutes(scope);
  });
  registerFace(app, FACES.scim, scim.setUpFace, scim.registerRoutes);
  // Without an admin token the admin face has no routes: every /admin path answers its 404.
  registerFace(app, FACES.admin, faceErrors(FACES.admin), (scope) => {
    if (!deps.adminToken) return;
    tenancyAdmin.registerAdminRoutes(scope);
    billing.registerAdminRoutes(scope);
    registry.registerAdminRoutes(scope);
    oauth.registerAdminRoutes(scope);
  });

  await app.ready();
  return { app, context };
}

/** `//api/x` → `/api/x`: one leading slash, the rest of the URL (and its query) untouched. */
const collapseLeadingSlashes = (url: string): string => url.replace(/^\/{2,}/, '/');
