import type { FastifyInstance } from 'fastify';
import { createAccessLog } from './logger.js';

const NO_STORE = /^\/(api|admin|auth)(\/|$)/;

// Hooks on every request are callback-style, not async: an async hook costs a promise and a microtask
// turn per request, which showed on the cached read paths.

/**
 * Headers every answer carries: its request id, nosniff, and no caching of anything that is not public.
 * Set when the request arrives so error answers carry them too; a route may still set its own.
 */
export function registerResponseHeaders(app: FastifyInstance): void {
  let closing = false;
  // Once shutdown starts, answers close their connection so a drained keep-alive socket does not hold exit.
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id).header('X-Content-Type-Options', 'nosniff');
    if (NO_STORE.test(request.url)) reply.header('Cache-Control', 'no-store');
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });
}

/**
 * One line per answered request, with the request id as a field (the line a request's child logger would
 * write, without making one); 5xx answers are also logged with their error by the error handler.
 */
export function registerRequestLog(app: FastifyInstance): void {
  const write = createAccessLog(app.log);
  app.addHook('onResponse', (request, reply, done) => {
    write({
      reqId: request.id,
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    });
    done();
  });
}
