import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { bearerToken, unauthorized } from '../../http/auth.js';
import { ApiError } from '../../http/errors.js';
import { type App, managementErrors } from '../../http/route-kit.js';
import { safeEqual } from '../../lib/secrets.js';
import type { Metrics } from './metrics.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Who may read /metrics on the main port: with CADRE_METRICS_TOKEN, a Bearer of it (constant-time compare);
 * without, only a direct client on loopback — a request that came through a proxy (it carries
 * Forwarded, Via, X-Real-IP or any X-Forwarded-* header) is refused even from loopback, since the proxy's clients are anyone.
 */
/** Headers only a proxy adds: any of them means the client is someone behind it, not this machine. */
const PROXY_HEADER = /^(forwarded|via|x-real-ip|x-forwarded-.+|x-client-ip|true-client-ip|cf-connecting-ip)$/;

function metricsAccess(token: string | undefined) {
  return (request: FastifyRequest): ApiError | undefined => {
    if (token) {
      const given = bearerToken(request);
      return typeof given === 'string' && safeEqual(given, token)
        ? undefined
        : unauthorized('Missing or invalid metrics token');
    }
    const proxied = Object.keys(request.headers).some((name) => PROXY_HEADER.test(name));
    if (!proxied && LOOPBACK.has(request.socket.remoteAddress ?? '')) return undefined;
    return new ApiError('forbidden', 'Metrics are served to loopback only; set CADRE_METRICS_TOKEN');
  };
}

export function registerMetricsRoute(app: App, metrics: Metrics, token: string | undefined): void {
  const allowed = metricsAccess(token);
  app.get('/metrics', {
    config: { rateLimit: false, shed: false },
    schema: {
      operationId: 'metrics',
      summary: 'Prometheus metrics (text exposition format)',
      description:
        'With CADRE_METRICS_TOKEN set: Bearer that token. Without it: only from loopback, never through a proxy.',
      tags: ['System'],
      response: { 200: z.string(), ...managementErrors(401, 403) },
    },
    handler: async (request, reply) => {
      const refused = allowed(request);
      if (refused) throw refused;
      const { body, contentType } = await metrics.render();
      return reply.type(contentType).send(body);
    },
  });
}
