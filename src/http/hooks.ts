import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createAccessLog } from './logger.js';
import type { ResponseStep } from './pipeline.js';

/**
 * Request step: headers every answer carries (its request id, nosniff, and no caching of anything that is
 * not public), set on arrival so error answers carry them too; a route may still set its own.
 */
export function setResponseHeaders(request: FastifyRequest, reply: FastifyReply): undefined {
  // Lower-case names: Fastify lower-cases every name it is given, and an unchanged literal stays interned.
  reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
  // No route config on router-level failures (frameworkErrors): those set no-store themselves.
  if (request.routeConfig?.noStore) reply.header('cache-control', 'no-store');
  return undefined;
}

/** Once shutdown starts, answers close their connection so a drained keep-alive socket does not hold exit. */
export function registerCloseOnShutdown(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    // HTTP/2 has no Connection header (Node drops it with a warning): its sessions are closed on preClose
    // (src/http/tls.ts).
    if (closing && request.raw.httpVersionMajor !== 2) reply.header('Connection', 'close');
    done(null, payload);
  });
}

/**
 * Response step: one line per answered request, with the request id as a field (the line a request's child
 * logger would write, without making one); 5xx answers are also logged with their error by the error
 * handler. Router-level failures (frameworkErrors) run no route hook: their handler calls it itself.
 */
export function requestLogStep(log: FastifyBaseLogger): ResponseStep {
  const write = createAccessLog(log);
  return (request, reply) =>
    write({
      reqId: request.id,
      method: request.method,
      // A capability URL (its path is the secret: a local checkout session) is logged as its route.
      url: request.routeConfig?.capabilityUrl ? (request.routeConfig.url ?? '') : request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    });
}
