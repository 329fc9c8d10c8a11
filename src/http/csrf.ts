import type { FastifyInstance, FastifyRequest } from 'fastify';
import { safeEqual } from '../lib/secrets.js';
import { ApiError } from './errors.js';
import { READ_METHODS } from './rate-limit/rate-limit.js';

/**
 * Where a route expects the console session's CSRF token: `body` (`csrfToken` in the JSON body, as the
 * billing POSTs do, docs/billing.md) or `header` (`X-CSRF-Token`, the default for every other route).
 */
type CsrfLocation = 'body' | 'header';

declare module 'fastify' {
  interface FastifyContextConfig {
    csrf?: CsrfLocation;
  }
}

export const CSRF_HEADER = 'x-csrf-token';

const csrfInvalid = () =>
  new ApiError('csrf_token_invalid', 'Missing or invalid CSRF token for this console session');

function presentedToken(request: FastifyRequest): unknown {
  if (request.routeConfig.csrf === 'body') {
    const body = request.body;
    return body && typeof body === 'object' ? (body as Record<string, unknown>).csrfToken : undefined;
  }
  return request.headers[CSRF_HEADER];
}

/**
 * Every state-changing request authenticated by a console session cookie must carry that session's CSRF
 * token; Bearer requests are not exposed to CSRF (browsers never add the header) and are not checked.
 * Runs after the body is parsed and before it is validated, so a forged request is refused with 403
 * before anything about the body is revealed.
 */
export function registerCsrfProtection(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const principal = request.principal;
    if (principal?.kind !== 'session' || READ_METHODS.has(request.method)) return done();
    const presented = presentedToken(request);
    const valid = typeof presented === 'string' && safeEqual(presented, principal.csrfToken);
    done(valid ? undefined : csrfInvalid());
  });
}
