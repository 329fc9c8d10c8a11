import Fastify, { type FastifyBaseLogger } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { type ChangeBus, createChangeBus } from './db/change-bus.js';
import type { Database } from './db/client.js';
import { registerAuthentication } from './http/auth.js';
import { registerErrorHandling, sendError } from './http/error-handler.js';
import { ApiError } from './http/errors.js';
import { registerResponseHeaders } from './http/hooks.js';
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
import { registerRegistryRoutes } from './modules/registry/registry.routes.js';
import { createRegistryService, type RegistryService } from './modules/registry/registry.service.js';
import { registerSystemRoutes } from './modules/system/system.routes.js';
import { registerAdminRoutes } from './modules/tenancy/admin.routes.js';
import { createTenancyService, type TenancyService } from './modules/tenancy/tenancy.service.js';

export const VERSION = '0.1.0';

export interface AppDeps {
  database: Database;
  clock?: Clock;
  /** A pino logger, or false for none (tests). */
  logger?: FastifyBaseLogger | false;
  /** Enables the admin API when set. */
  adminToken?: string | undefined;
  bodyLimitBytes?: number;
  lastUsedFlushMs?: number;
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
  registry: RegistryService;
}

export async function buildApp(deps: AppDeps): Promise<{ app: App; context: AppContext }> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    genReqId: requestId,
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
    registry,
  };

  await bus.start();
  authenticator.start();
  app.addHook('onClose', async () => {
    await authenticator.stop();
    await bus.stop();
  });

  registerErrorHandling(app);
  registerResponseHeaders(app);
  registerAuthentication(app, {
    resolvers: [createApiKeyResolver(authenticator)],
    adminToken: deps.adminToken,
  });
  await registerOpenApi(app, VERSION);

  registerSystemRoutes(app, deps.database);
  registerApiKeyRoutes(app, apiKeys);
  registerRegistryRoutes(app, registry);
  if (deps.adminToken) registerAdminRoutes(app, { tenancy, apiKeys });

  await app.ready();
  return { app, context };
}
