// The Fastify instance itself: its logger, timeouts, TLS, URL rewriting and the answers it gives before any
// route runs (a malformed URL, a broken client connection), in the documented error shape.
import Fastify, { LogController } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { answerClientError } from '../http/client-errors.js';
import { sendError } from '../http/error-handler.js';
import { ApiError } from '../http/errors.js';
import { faceOfUnroutedPath } from '../http/faces.js';
import { requestLogStep, setResponseHeaders } from '../http/hooks.js';
import { lazyChildLogger } from '../http/logger.js';
import { requestId } from '../http/request-id.js';
import type { App } from '../http/route-kit.js';
import { responseSerializer } from '../http/serializer.js';
import { boundTlsServer, tlsServerOptions } from '../http/tls.js';
import type { AppDeps } from './app-deps.js';

/** The service's version, in `/openapi.json` and the metrics. */
export const VERSION = '0.1.0';

export interface Server {
  app: App;
  /** The access log's step (one line per answer), when requests are logged. */
  logRequest: ReturnType<typeof requestLogStep> | undefined;
}

export function createServer(deps: AppDeps): Server {
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
  return { app, logRequest };
}

/** `//api/x` → `/api/x`: one leading slash, the rest of the URL (and its query) untouched. */
const collapseLeadingSlashes = (url: string): string => url.replace(/^\/{2,}/, '/');
