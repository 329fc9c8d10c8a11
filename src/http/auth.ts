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

/** Turns a request's credentials into a principal; null when it carries none of its kind. */
export interface PrincipalResolver {
  resolve(request: FastifyRequest): Promise<Principal | null | 'invalid'>;
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
  app.addHook('onRequest', async (request) => {
    const mode = request.routeOptions.config?.auth ?? 'public';
    if (mode === 'public') return;
    if (mode === 'admin') {
      const token = bearerToken(request);
      if (!options.adminToken || typeof token !== 'string' || !safeEqual(token, options.adminToken)) {
        throw unauthorized('Missing or invalid admin token');
      }
      return;
    }
    for (const resolver of options.resolvers) {
      const principal = await resolver.resolve(request);
      if (principal === 'invalid') throw unauthorized();
      if (principal) {
        request.principal = principal;
        return;
      }
    }
    if (mode === 'principal') throw unauthorized();
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
