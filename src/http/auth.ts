import type { FastifyInstance, FastifyRequest } from 'fastify';
import { safeEqual } from '../lib/secrets.js';
import { ApiError } from './errors.js';
import type { RequestStep, RequestStepResult } from './pipeline.js';

/**
 * Who authentication resolves a request to. The permission model defines it (src/modules/auth adds it here by
 * declaration merging), so the request pipeline carries the principal without importing the domain built on it
 * (docs/architecture.md, "Layers").
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in src/modules/auth/permissions.ts
export interface PrincipalTypes {}
export type Principal = PrincipalTypes extends { principal: infer Defined } ? Defined : never;

/**
 * How a route authenticates. `principal`: an API key or console session is required. `optional`: resolved
 * when present (public reads that behave differently for a signed-in caller). `admin`: the admin token.
 */
type RouteAuth = 'public' | 'principal' | 'optional' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** `expired`: a credential that was good until its expiry (its holder is told so). */
type Resolution = Principal | null | 'invalid' | 'expired';

/**
 * Turns a request's credentials into a principal; null when it carries none of its kind. Synchronous when
 * it can answer from memory (a cached API key), so the hot path costs no promise.
 */
export interface PrincipalResolver {
  resolve(request: FastifyRequest): Resolution | Promise<Resolution>;
}

export const unauthorized = (message = 'Missing or invalid credentials') =>
  new ApiError('unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer realm="cadre"' });

const EXPIRED_KEY =
  "This API key has expired: make a new one (cadre login, cadre keys create, or the console's API keys page)";

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

/**
 * Decorates requests with `principal` and returns the request step that resolves it as the route's `auth`
 * mode asks: 401 for a missing or invalid credential where one is needed.
 */
export function registerAuthentication(app: FastifyInstance, options: AuthOptions): RequestStep {
  app.decorateRequest('principal', null);
  const admit = (request: FastifyRequest, found: Principal | 'invalid' | 'expired'): ApiError | undefined => {
    if (found === 'invalid') return unauthorized();
    if (found === 'expired') return unauthorized(EXPIRED_KEY);
    request.principal = found;
    return undefined;
  };
  // Tries each resolver in turn from `first`; synchronous while the resolvers answer synchronously.
  const resolveFrom = (first: number, request: FastifyRequest): RequestStepResult => {
    for (let index = first; index < options.resolvers.length; index++) {
      const resolution = options.resolvers[index]!.resolve(request);
      if (resolution instanceof Promise) {
        return resolution.then((found) =>
          found === null ? resolveFrom(index + 1, request) : admit(request, found),
        );
      }
      if (resolution !== null) return admit(request, resolution);
    }
    return request.routeConfig.auth === 'principal' ? unauthorized() : undefined;
  };
  return (request) => {
    const mode = request.routeConfig.auth ?? 'public';
    if (mode === 'public') return undefined;
    if (mode === 'admin') {
      const token = bearerToken(request);
      const valid = options.adminToken && typeof token === 'string' && safeEqual(token, options.adminToken);
      return valid ? undefined : unauthorized('Missing or invalid admin token');
    }
    return resolveFrom(0, request);
  };
}

export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
