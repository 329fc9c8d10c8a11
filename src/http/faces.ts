import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { READ_METHODS } from './rate-limit/rate-limit.js';
import type { App } from './route-kit.js';

/**
 * Cadre's faces: each is one encapsulated Fastify plugin with its prefix, its error shape, its not-found
 * answer and its defaults; a route inherits its face's behaviour by where it is registered, and its
 * `config` states only what differs for that route (docs/architecture.md).
 */
export type FaceName =
  | 'registry'
  | 'perstack'
  | 'mcp'
  | 'management'
  | 'admin'
  | 'auth'
  | 'system'
  | 'scim'
  | 'console';

/**
 * The error body shape of a face: the registry's `{ code, error, reason }`, the same as Perstack's tools read
 * it (`perstack`: `error` carries the reason, statuses as Perstack's API documents them; docs/perstack.md), or
 * the management envelope.
 */
export type ErrorShape = 'registry' | 'perstack' | 'management';

/** What every route of a face gets unless its own `config` says otherwise. */
export interface FaceDefaults {
  face: FaceName;
  errorShape: ErrorShape;
  /** `Cache-Control: no-store` on every answer (management answers are never cached). */
  noStore: boolean;
  /**
   * Which authenticated requests count as API requests of the caller's organization (billing usage and the
   * `apiRequests` quota): `true` every one, `'writes'` only changes (the registries: their reads are public
   * and cached, their writes are an organization's work like any management call), `false` none.
   */
  countUsage: boolean | 'writes';
  /** `false`: never shed under overload (health probes, metrics). Routes set `rateLimit: false` alike. */
  shed?: false;
  /** `false`: not counted by the general rate limits (SCIM counts each organization's requests itself). */
  rateLimit?: false;
  /** `false`: served even when the organization has used its plan's API requests (billing, to upgrade). */
  apiQuota?: false;
}

declare module 'fastify' {
  interface FastifyContextConfig extends Partial<FaceDefaults> {
    /** The URL itself is a secret (a capability): the request log writes the route pattern instead. */
    capabilityUrl?: boolean;
  }
}

export interface Face {
  prefix: string;
  defaults: FaceDefaults;
}

export const FACES = {
  /**
   * The Perstack-compatible registry (docs/perstack.md): first, because its prefix lies under the management
   * face's `/api` and an unrouted path belongs to the longest prefix it falls under.
   */
  perstack: {
    prefix: '/api/registry/v1',
    defaults: { face: 'perstack', errorShape: 'perstack', noStore: false, countUsage: 'writes' },
  },
  registry: {
    prefix: '/registry',
    defaults: { face: 'registry', errorShape: 'registry', noStore: false, countUsage: 'writes' },
  },
  /**
   * Each organization's MCP catalog in the MCP Registry's v0.1 API (docs/mcp-registry.md): read by IDEs, so
   * its errors take the registry's shape (`error` is the field the MCP Registry's document gives).
   */
  mcp: {
    prefix: '/mcp',
    defaults: { face: 'mcp', errorShape: 'registry', noStore: true, countUsage: false },
  },
  management: {
    prefix: '/api',
    defaults: { face: 'management', errorShape: 'management', noStore: true, countUsage: true },
  },
  admin: {
    prefix: '/admin',
    defaults: { face: 'admin', errorShape: 'management', noStore: true, countUsage: false },
  },
  auth: {
    prefix: '/auth',
    defaults: { face: 'auth', errorShape: 'management', noStore: true, countUsage: false },
  },
  /**
   * SCIM 2.0 provisioning (docs/scim.md): its own bearer token, resolved by the face itself, and RFC 7644's
   * error shape, answered by the face's own error handler (src/modules/scim/scim.routes.ts).
   */
  scim: {
    prefix: '/scim/v2',
    defaults: { face: 'scim', errorShape: 'management', noStore: true, countUsage: false, rateLimit: false },
  },
  system: {
    prefix: '',
    defaults: { face: 'system', errorShape: 'management', noStore: false, countUsage: false },
  },
  /** The web console's pages and assets (src/modules/console); its not-found answer is the root's. */
  console: {
    prefix: '',
    defaults: { face: 'console', errorShape: 'management', noStore: false, countUsage: false },
  },
} as const satisfies Record<FaceName, Face>;

/** Whether this authenticated request counts as one of its organization's API requests (see `countUsage`). */
export function countsAsApiRequest(request: FastifyRequest): boolean {
  const counted = request.routeConfig.countUsage;
  return counted === 'writes' ? !READ_METHODS.has(request.method) : Boolean(counted);
}

/**
 * The face whose prefix a path falls under. Only for answers the router could not route at all (a
 * malformed URL, a URL over the parameter length): every routed request knows its face from its route.
 */
export function faceOfUnroutedPath(path: string): FaceDefaults {
  for (const face of Object.values(FACES)) {
    if (face.prefix && (path === face.prefix || path.startsWith(`${face.prefix}/`))) return face.defaults;
  }
  return FACES.system.defaults;
}

/** True for a path of a face that answers errors in the registry's `{ code, error, reason }` shape. */
export const answersInRegistryShape = (path: string): boolean =>
  faceOfUnroutedPath(path).errorShape !== 'management';

/**
 * Registers a face: an encapsulated scope under its prefix whose routes get the face's defaults (their own
 * `config` wins), and `setUp` for what else the face owns (its error and not-found handlers).
 */
export function registerFace(
  app: FastifyInstance,
  face: Face,
  setUp: (scope: App) => void,
  routes: (scope: App) => void,
): void {
  app.register(
    async (instance) => {
      const scope = instance.withTypeProvider<ZodTypeProvider>();
      scope.addHook('onRoute', (route) => {
        route.config = { ...face.defaults, ...route.config };
      });
      setUp(scope);
      routes(scope);
    },
    { prefix: face.prefix },
  );
}
