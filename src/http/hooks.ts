import type { FastifyInstance } from 'fastify';
import { redactUrl } from './logger.js';

const NO_STORE = /^\/(api|admin|auth)(\/|$)/;

/** Headers every answer carries: its request id, and no caching of anything that is not public. */
export function registerResponseHeaders(app: FastifyInstance): void {
  let closing = false;
  // Once shutdown starts, answers close their connection so a drained keep-alive socket does not hold exit.
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    if (NO_STORE.test(request.url)) reply.header('Cache-Control', 'no-store');
    if (closing) reply.header('Connection', 'close');
  });
}

/** One line per answered request; 5xx answers are also logged with their error by the error handler. */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: redactUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}
