import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { z } from 'zod';
import { managementErrorSchema } from './errors.js';
import type { App } from './route-kit.js';

/**
 * Names wherever people type them (docs/organization-api.md, "Organizations, projects and environments in
 * paths"), for every route of the management face in one place rather than per route:
 *
 * - a project (`projectId`) by its id or slug and an environment (`environmentId`) by its id or name, in a
 *   path or a query, resolved within the caller's own organization before the route validates its input;
 * - every organization-scoped `/v1/…` path also at `/v1/organizations/{org}/…` (`{org}` the organization's
 *   id or slug), answering exactly as the short path does for the caller's own organization and 404, as for
 *   an unknown one, for any other.
 */
export interface PathNames {
  projectId(organizationId: string, idOrSlug: string): Promise<string | undefined>;
  environmentId(projectId: string, idOrName: string): Promise<string | undefined>;
  /** The caller's own organization's id when `idOrSlug` names it; throws the 404 otherwise. */
  ownOrganizationId(principal: { organizationId: string }, idOrSlug: string): Promise<string>;
}

/** Paths of the whole service, not of an organization: no `/v1/organizations/{org}/…` form. */
const SERVICE_WIDE = ['/v1/me', '/v1/billing/', '/v1/oauth/'];
const ORGANIZATIONS = '/v1/organizations/';
/** The publish policy's path names the organization in the singular; its long form is the plural's. */
const SINGULAR = '/v1/organization/';

const orgParam = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "The organization's id or slug (the caller's own; any other answers 404)" });

/** How the OpenAPI document describes the names every project and environment parameter accepts. */
const NAMED = {
  projectId: z.string().min(1).max(64).meta({ description: "The project's id or slug" }),
  environmentId: z.string().min(1).max(64).meta({ description: "The environment's id or name (production)" }),
};

/** A route's params or query with its project and environment described as taking names (NAMED). */
function describeNames(shape: unknown): unknown {
  if (!(shape instanceof z.ZodObject)) return shape;
  const named = Object.keys(NAMED).filter((key) => key in shape.shape) as Array<keyof typeof NAMED>;
  if (named.length === 0) return shape;
  const optional = (key: keyof typeof NAMED) => (shape.shape[key] as z.ZodType).safeParse(undefined).success;
  return shape.extend(
    Object.fromEntries(named.map((key) => [key, optional(key) ? NAMED[key].optional() : NAMED[key]])),
  );
}

type Bag = Record<string, unknown>;
const stringIn = (bag: unknown, key: string): string | undefined => {
  const value = bag && typeof bag === 'object' ? (bag as Bag)[key] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
};

async function resolveIn(bag: unknown, organizationId: string, names: PathNames): Promise<void> {
  const project = stringIn(bag, 'projectId');
  if (project === undefined) return;
  const projectId = await names.projectId(organizationId, project);
  if (projectId === undefined) return;
  (bag as Bag).projectId = projectId;
  const environment = stringIn(bag, 'environmentId');
  if (environment === undefined) return;
  const environmentId = await names.environmentId(projectId, environment);
  if (environmentId !== undefined) (bag as Bag).environmentId = environmentId;
}

/** A route as the onRoute hook sees it: `routePath` is its path within the face (without the prefix). */
type RegisteredRoute = RouteOptions & { routePath: string; path: string; prefix: string };

/** The long form of a route's path, or undefined for a route that has none (see SERVICE_WIDE). */
function organizationPathOf(route: RegisteredRoute): string | undefined {
  const path = route.routePath;
  // Fastify adds each GET's HEAD itself: the long form's GET brings its own.
  if (route.method === 'HEAD') return undefined;
  if (route.config?.auth !== 'principal' || path.startsWith(ORGANIZATIONS)) return undefined;
  if (!path.startsWith('/v1/') || SERVICE_WIDE.some((prefix) => path.startsWith(prefix))) return undefined;
  const rest = path.startsWith(SINGULAR) ? path.slice(SINGULAR.length - 1) : path.slice('/v1'.length);
  return `${ORGANIZATIONS}:org${rest}`;
}

function organizationRoute(route: RegisteredRoute, url: string, names: PathNames): RouteOptions {
  const schema = route.schema ?? {};
  const params = schema.params instanceof z.ZodObject ? schema.params.shape : {};
  const response = schema.response as Record<number, unknown> | undefined;
  const ownOrganization = async (request: FastifyRequest) => {
    const org = (request.params as Bag).org as string;
    // A request without a principal never reaches here (the route's auth is 'principal').
    await names.ownOrganizationId(request.principal ?? { organizationId: '' }, org);
  };
  const { routePath: _routePath, prefix: _prefix, path: _path, ...options } = route;
  return {
    ...options,
    url,
    preValidation: [ownOrganization, ...[route.preValidation ?? []].flat()],
    schema: {
      ...schema,
      ...(typeof schema.operationId === 'string'
        ? { operationId: `${schema.operationId}InOrganization` }
        : {}),
      params: z.object({ org: orgParam, ...params }),
      // Its `{org}` may name no organization of the caller's (404) or be no name at all (422).
      ...(response
        ? {
            response: {
              ...response,
              404: response[404] ?? managementErrorSchema,
              422: response[422] ?? managementErrorSchema,
            },
          }
        : {}),
    },
  };
}

/** Installs both rules on the management face's scope; call before its routes are registered. */
export function registerPathNames(scope: App, names: PathNames): void {
  scope.addHook(
    'preValidation',
    (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      const organizationId = request.principal?.organizationId;
      if (organizationId === undefined) return done();
      if (
        stringIn(request.params, 'projectId') === undefined &&
        stringIn(request.query, 'projectId') === undefined
      ) {
        return done();
      }
      resolveIn(request.params, organizationId, names)
        .then(() => resolveIn(request.query, organizationId, names))
        .then(() => done(), done);
    },
  );
  scope.addHook('onRoute', (route) => {
    if (route.schema?.params) route.schema.params = describeNames(route.schema.params);
    if (route.schema?.querystring) route.schema.querystring = describeNames(route.schema.querystring);
    const url = organizationPathOf(route);
    if (url !== undefined) scope.route(organizationRoute(route, url, names));
  });
}
