import type { FastifyInstance, FastifyRequest } from 'fastify';
import { safeEqual } from '../lib/secrets.js';
import type { Permission } from '../modules/auth/grants.js';
import { can, type Principal, type Scope } from '../modules/auth/permissions.js';
import { ApiError, forbidden } from './errors.js';

/**
 * How a route authenticates. `principal`: an API key or console session is required. `optional`: resolved
 * when present (public reads that behave differently for a signed-in caller). `admin`: the admin token.
 */
export type RouteAuth = 'public' | 'principal' | 'optional' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

type Resolution = Principal | null | 'invalid';

/**
 * Turns a request's credentials into a principal; null when it carries none of its kind. Synchronous when
 * it can answer from memory (a cached API key), so the hot path costs no promise.
 */
export interface PrincipalResolver {
  resolve(request: FastifyRequest): Resolution | Promise<Resolution>;
}

export const unauthorized = (message = 'Missing or invalid credentials') =>
  new ApiError('unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer realm="cadre"' });

export function bearerToken(request: FastifyRequest): string | undefined | 'malformed' {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1] ?? 'malformed';
}

export interface AuthOptions {
  resolvers: PrincipalResolver[];
  adminToken: string | undefined;
}

export function registerAuthentication(app: FastifyInstance, options: AuthOptions): void {
  app.decorateRequest('principal', null);
  // Tries each resolver in turn from `index`; calls `done` with the outcome, without a promise when no
  // resolver needs one.
  const resolveFrom = (index: number, request: FastifyRequest, done: (error?: ApiError) => void): void => {
    for (let i = index; i < options.resolvers.length; i++) {
      const resolution = options.resolvers[i]!.resolve(request);
      if (resolution instanceof Promise) {
        resolution.then((found) => {
          if (found === null) resolveFrom(i + 1, request, done);
          else done(admit(request, found));
        }, done);
        return;
      }
      if (resolution !== null) {
        done(admit(request, resolution));
        return;
      }
    }
    done(request.routeOptions.config?.auth === 'principal' ? unauthorized() : undefined);
  };
  const admit = (request: FastifyRequest, found: Principal | 'invalid'): ApiError | undefined => {
    if (found === 'invalid') return unauthorized();
    request.principal = found;
    return undefined;
  };
  app.addHook('onRequest', (request, _reply, done) => {
    const mode = request.routeOptions.config?.auth ?? 'public';
    if (mode === 'public') return done();
    if (mode === 'admin') {
      const token = bearerToken(request);
      const valid = options.adminToken && typeof token === 'string' && safeEqual(token, options.adminToken);
      return done(valid ? undefined : unauthorized('Missing or invalid admin token'));
    }
    resolveFrom(0, request, done);
  });
}

export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

/** 403 unless the request's principal may do `permission` on `scope`. */
export function authorize(request: FastifyRequest, permission: Permission, scope?: Scope): Principal {
  const principal = requirePrincipal(request);
  const target = scope ?? { kind: 'organization', organizationId: principal.organizationId };
  if (!can(principal, permission, target)) throw forbidden(`Missing permission ${permission}`);
  return principal;
}
