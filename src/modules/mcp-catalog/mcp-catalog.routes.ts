import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import {
  type App,
  queryInHandler,
  queryValidator,
  registryErrors,
  sendSerialized,
} from '../../http/route-kit.js';
import type { CatalogReadEvents } from '../metrics/index.js';
import {
  catalogParams,
  includeDeletedQuery,
  linkParams,
  linkServerParams,
  linkVersionParams,
  listServersQuery,
  serverAnswer,
  serverListAnswer,
  serverParams,
  versionParams,
} from './mcp-catalog.schemas.js';
import type { Answer, Catalog, McpCatalogService } from './mcp-catalog.service.js';

const tags = ['MCP catalog'];

const parseListQuery = queryValidator(listServersQuery);

/**
 * What IDEs need to read a catalog from a web view or another origin (VS Code, Copilot): any origin may read
 * (the answers hold no cookie-bound data: private catalogs are read with a Bearer key or a catalog link).
 * Every answer says so; the methods, headers and how long to remember them are read by browsers from the
 * preflight's answer only (the Fetch standard's CORS check), so only the preflight carries them.
 */
const PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type',
  'access-control-max-age': '86400',
};

/**
 * Every answer of the face carries `Access-Control-Allow-Origin`, errors included, so a browser client can
 * read them: set when the request arrives, since an error answer keeps the headers already set.
 */
export function registerCatalogCors(app: App): void {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('access-control-allow-origin', '*');
    done();
  });
}

/** Where a request's catalog comes from: its organization's slug, or its catalog link's secret. */
type CatalogPart = { organization?: string; secret?: string };
type Resolve = (request: FastifyRequest, part: CatalogPart) => Catalog | Promise<Catalog>;

/**
 * The v0.1 read API of the MCP Registry for one way of reaching a catalog (`base`): its organization's
 * address (public, or a Bearer key with mcp:read) or its catalog link (the secret in the URL).
 */
function registerReads(
  app: App,
  catalogs: McpCatalogService,
  reads: CatalogReadEvents,
  base: '/:organization' | '/-/:secret',
  resolve: Resolve,
): void {
  const viaLink = base === '/-/:secret';
  // The link's URL is a secret: the request log writes the route's pattern, never the URL.
  const config: FastifyContextConfig = viaLink
    ? { auth: 'public', capabilityUrl: true }
    : { auth: 'optional' };
  // Each route's own parameters for OpenAPI; typed as the organization's (the handlers read only the server's).
  const params = {
    list: (viaLink ? linkParams : catalogParams) as typeof catalogParams,
    server: (viaLink ? linkServerParams : serverParams) as typeof serverParams,
    version: (viaLink ? linkVersionParams : versionParams) as typeof versionParams,
  };
  const catalogOf = (request: FastifyRequest) => resolve(request, request.params as CatalogPart);
  /**
   * Sends a read's answer and counts it by route and by where it came from (cadre_mcp_catalog_reads_total).
   * The route's pattern is read from the config the request pipeline kept: `request.routeOptions` builds a
   * new object of a dozen fields on every access, garbage on every cached read.
   */
  const send = (request: FastifyRequest, reply: FastifyReply, answer: Answer) => {
    reads.read(request.routeConfig.url ?? base, answer.from);
    return sendSerialized(reply, answer.body);
  };
  /**
   * Resolves the request's catalog, then `read`s from it: synchronous when this instance's cache holds
   * both (the hot path costs no promise, as the registry's reads).
   */
  const respond = (
    request: FastifyRequest,
    reply: FastifyReply,
    read: (catalog: Catalog) => Answer | Promise<Answer>,
  ): Promise<void> | undefined => {
    const catalog = catalogOf(request);
    const answer = catalog instanceof Promise ? catalog.then(read) : read(catalog);
    if (!(answer instanceof Promise)) {
      send(request, reply, answer);
      return undefined;
    }
    return answer.then(async (found) => {
      await send(request, reply, found); // a reply is awaitable: settles once sent
    });
  };
  const how = viaLink ? 'through its catalog link' : "at its organization's address";

  app.get(`${base}/v0.1/servers`, {
    config,
    schema: {
      operationId: viaLink ? 'listMcpServersByLink' : 'listMcpServers',
      summary: `List the catalog's MCP servers ${how} (MCP Registry v0.1)`,
      description:
        'Pages in name order; `version=latest` lists each server once. `updated_since` includes deleted ' +
        'versions, so mirrors see them go. See docs/mcp-registry.md.',
      tags,
      params: params.list,
      querystring: listServersQuery,
      response: { 200: serverListAnswer, ...registryErrors(401, 403, 404) },
    },
    validatorCompiler: queryInHandler,
    handler: (request, reply) => {
      const queryAt = request.url.indexOf('?');
      const queryText = queryAt < 0 ? '' : request.url.slice(queryAt + 1);
      return respond(request, reply, (catalog) =>
        catalogs.list(catalog, queryText, () => parseListQuery(request.query)),
      );
    },
  });

  app.get(`${base}/v0.1/servers/:serverName/versions`, {
    config,
    schema: {
      operationId: viaLink ? 'listMcpServerVersionsByLink' : 'listMcpServerVersions',
      summary: `Every version of one MCP server ${how}, newest first`,
      tags,
      params: params.server,
      querystring: includeDeletedQuery,
      response: { 200: serverListAnswer, ...registryErrors(401, 403, 404) },
    },
    handler: async (request, reply) => {
      const { serverName } = request.params;
      const catalog = await catalogOf(request);
      return send(
        request,
        reply,
        await catalogs.versions(catalog, serverName, request.query.include_deleted),
      );
    },
  });

  app.get(`${base}/v0.1/servers/:serverName/versions/:version`, {
    config,
    schema: {
      operationId: viaLink ? 'getMcpServerVersionByLink' : 'getMcpServerVersion',
      summary: `One version of an MCP server ${how}; \`latest\` names the latest`,
      tags,
      params: params.version,
      querystring: includeDeletedQuery,
      response: { 200: serverAnswer, ...registryErrors(401, 403, 404) },
    },
    handler: (request, reply) => {
      const { serverName, version } = request.params;
      return respond(request, reply, (catalog) =>
        catalogs.version(catalog, serverName, version, request.query.include_deleted),
      );
    },
  });
}

/** The catalog face (`/mcp`): the v0.1 reads at both addresses, and the CORS preflight of each. */
export function registerCatalogReadRoutes(
  app: App,
  catalogs: McpCatalogService,
  reads: CatalogReadEvents,
): void {
  registerReads(app, catalogs, reads, '/:organization', (request, part) =>
    catalogs.bySlug(part.organization ?? '', request.principal),
  );
  registerReads(app, catalogs, reads, '/-/:secret', (_request, part) => catalogs.byLink(part.secret ?? ''));

  // The preflight a browser sends before a GET with Authorization: answered for every catalog path.
  // The pattern, not the URL, goes to the request log: a preflight of a catalog link carries its secret.
  app.options('/*', {
    config: { auth: 'public', capabilityUrl: true },
    schema: { hide: true },
    handler: async (_request, reply: FastifyReply) => reply.code(204).headers(PREFLIGHT_HEADERS).send(),
  });
}
