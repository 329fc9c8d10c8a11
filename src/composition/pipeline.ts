// The request pipeline: the error handlers, the hooks every request passes through (in their order) and the
// OpenAPI document. Registered before the faces, so every route of every face runs it.
import { warnOfEmbeddedContention } from '../db/embedded/contention-warning.js';
import { registerAuthentication } from '../http/auth.js';
import { createConcurrencyLimit, DEFAULT_CONCURRENCY } from '../http/concurrency.js';
import { registerCsrfProtection } from '../http/csrf.js';
import { registerErrorHandling, sendError } from '../http/error-handler.js';
import { registerCloseOnShutdown, setResponseHeaders } from '../http/hooks.js';
import { refuseForeignJsonCharsets } from '../http/json-charset.js';
import { registerOpenApi } from '../http/openapi.js';
import { registerOverloadProtection } from '../http/overload.js';
import { registerRequestPipeline } from '../http/pipeline.js';
import { createAuthFailureLimit, createRateLimitStep } from '../http/rate-limit/rate-limit.js';
import type { AppDeps } from './app-deps.js';
import type { Foundations } from './foundations.js';
import type { Modules } from './modules.js';
import { type Server, VERSION } from './server.js';

export async function registerPipeline(
  { app, logRequest }: Server,
  deps: AppDeps,
  foundations: Foundations,
  modules: Modules,
) {
  const { database, clock, health, overload, rateLimitStore, rateLimitOptions } = foundations;
  const { consoleModule, apiKeys, sessions, billing, metrics } = modules;
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
}
