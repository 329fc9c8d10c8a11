import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '../../db/errors.js';
import { bearerToken } from '../../http/auth.js';
import { ApiError } from '../../http/errors.js';
import type { OwnBudgetCheck } from '../../http/rate-limit/rate-limit.js';
import type { App } from '../../http/route-kit.js';
import { groupBody, listQuery, patchBody, resourceParams, userBody } from './scim.schemas.js';
import { discoveryDocuments } from './scim-discovery.js';
import type { ScimGroupsService } from './scim-groups.service.js';
import { SCIM_CONTENT_TYPE, ScimError, scimErrorBody } from './scim-protocol.js';
import type { ScimTokenService } from './scim-token.service.js';
import type { ScimUsersService } from './scim-users.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The organization whose SCIM token the request carries (the SCIM face only). */
    scimOrganizationId: string | null;
  }
}

const organizationOf = (request: FastifyRequest): string => {
  if (!request.scimOrganizationId) throw new ScimError(401, 'Missing or invalid SCIM token');
  return request.scimOrganizationId;
};

const ifMatch = (request: FastifyRequest) => request.headers['if-match'];

/** SCIM resources are described by SCIM's own discovery endpoints, not in /openapi.json. */
const hidden = { hide: true } as const;

/**
 * The SCIM face's own set-up (docs/scim.md): SCIM's media type parsed as JSON, the bearer token resolved to its
 * organization before anything else, and every failure answered in RFC 7644's error shape.
 */
export function setUpScimFace(
  app: App,
  tokens: Pick<ScimTokenService, 'organizationOf'>,
  onDatabaseUnavailable: () => void,
  rateLimit: OwnBudgetCheck,
) {
  app.decorateRequest('scimOrganizationId', null);
  app.addContentTypeParser(
    SCIM_CONTENT_TYPE,
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );
  app.addHook('onRequest', async (request, reply) => {
    const token = bearerToken(request);
    const organizationId = typeof token === 'string' ? await tokens.organizationOf(token) : undefined;
    if (!organizationId) throw new ScimError(401, 'Missing or invalid SCIM token');
    request.scimOrganizationId = organizationId;
    // SCIM's own budget, per organization (docs/scim.md, "Rate limits"): not the anonymous one of the address.
    const refusal = await rateLimit('scim', organizationId, request, reply);
    if (refusal) {
      for (const [name, value] of Object.entries(refusal.headers ?? {})) reply.header(name, value);
      // SCIM answers in its own shape; the refusals metric still reads the refusal's code and cause.
      request.answeredError = refusal;
      throw new ScimError(429, refusal.message);
    }
  });
  app.setErrorHandler((error, request, reply) => {
    const { status, detail, scimType } = toScimError(error);
    if (status === 503) onDatabaseUnavailable();
    if (status >= 500 && status !== 503) request.log.error({ err: error }, 'request failed');
    return send(reply, status, detail, scimType);
  });
  app.setNotFoundHandler((request, reply) =>
    send(reply, 404, `No SCIM resource at ${request.method} ${request.url.split('?')[0]}`),
  );
}

function send(reply: FastifyReply, status: number, detail: string, scimType?: ScimError['scimType']) {
  if (status === 401) reply.header('www-authenticate', 'Bearer realm="cadre-scim"');
  if (status === 503) reply.header('retry-after', '5');
  return reply
    .code(status)
    .type(SCIM_CONTENT_TYPE)
    .send(scimErrorBody(status, detail, scimType));
}

function toScimError(error: unknown): { status: number; detail: string; scimType?: ScimError['scimType'] } {
  if (error instanceof ScimError) return error;
  if (isDatabaseUnavailable(error)) return { status: 503, detail: 'The service is temporarily unavailable' };
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext === 'body' ? '' : `${error.validationContext}.`;
    const detail = error.validation
      .map((issue) => `${where}${issue.instancePath.split('/').filter(Boolean).join('.')}: ${issue.message}`)
      .join('; ');
    return { status: 400, detail, scimType: 'invalidValue' };
  }
  if (error instanceof ApiError) return { status: error.status, detail: error.message };
  const code = (error as { code?: string }).code;
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return { status: 400, detail: 'The request body is not valid JSON', scimType: 'invalidSyntax' };
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return { status: 415, detail: `Send ${SCIM_CONTENT_TYPE} or application/json` };
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { status: 413, detail: 'The request body is too large' };
  const statusCode = (error as { statusCode?: number }).statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500)
    return { status: 400, detail: (error as Error).message, scimType: 'invalidSyntax' };
  return { status: 500, detail: 'The server could not complete the request' };
}

/** Answers in SCIM's media type (clients check it), with the resource's version as its ETag. */
function resource(reply: FastifyReply, body: object, status = 200) {
  const version = (body as { meta?: { version?: unknown } }).meta?.version;
  if (typeof version === 'string') reply.header('etag', version);
  return reply.code(status).type(SCIM_CONTENT_TYPE).send(body);
}

export function registerScimRoutes(
  app: App,
  services: { users: ScimUsersService; groups: ScimGroupsService; baseUrl: () => string },
): void {
  const { users, groups } = services;
  const documents = discoveryDocuments(services.baseUrl);

  app.get('/ServiceProviderConfig', { schema: hidden }, (_request, reply) =>
    resource(reply, documents.serviceProviderConfig()),
  );
  app.get('/ResourceTypes', { schema: hidden }, (_request, reply) =>
    resource(reply, documents.resourceTypes()),
  );
  app.get('/ResourceTypes/:id', { schema: { ...hidden, params: resourceParams } }, (request, reply) =>
    resource(reply, documents.resourceType(request.params.id)),
  );
  app.get('/Schemas', { schema: hidden }, (_request, reply) => resource(reply, documents.schemas()));
  app.get('/Schemas/:id', { schema: { ...hidden, params: resourceParams } }, (request, reply) =>
    resource(reply, documents.schema(request.params.id)),
  );

  app.get('/Users', { schema: { ...hidden, querystring: listQuery } }, async (request, reply) =>
    resource(reply, await users.list(organizationOf(request), request.query)),
  );
  app.post('/Users', { schema: { ...hidden, body: userBody } }, async (request, reply) =>
    resource(reply, await users.create(organizationOf(request), request.body), 201),
  );
  app.get('/Users/:id', { schema: { ...hidden, params: resourceParams } }, async (request, reply) =>
    resource(reply, await users.get(organizationOf(request), request.params.id)),
  );
  app.put(
    '/Users/:id',
    { schema: { ...hidden, params: resourceParams, body: userBody } },
    async (request, reply) =>
      resource(
        reply,
        await users.replace(organizationOf(request), request.params.id, request.body, ifMatch(request)),
      ),
  );
  app.patch(
    '/Users/:id',
    { schema: { ...hidden, params: resourceParams, body: patchBody } },
    async (request, reply) =>
      resource(
        reply,
        await users.patch(
          organizationOf(request),
          request.params.id,
          request.body.Operations,
          ifMatch(request),
        ),
      ),
  );
  app.delete('/Users/:id', { schema: { ...hidden, params: resourceParams } }, async (request, reply) => {
    await users.remove(organizationOf(request), request.params.id, ifMatch(request));
    return reply.code(204).send();
  });

  app.get('/Groups', { schema: { ...hidden, querystring: listQuery } }, async (request, reply) =>
    resource(reply, await groups.list(organizationOf(request), request.query)),
  );
  app.post('/Groups', { schema: { ...hidden, body: groupBody } }, async (request, reply) =>
    resource(reply, await groups.create(organizationOf(request), request.body), 201),
  );
  app.get('/Groups/:id', { schema: { ...hidden, params: resourceParams } }, async (request, reply) =>
    resource(reply, await groups.get(organizationOf(request), request.params.id)),
  );
  app.patch(
    '/Groups/:id',
    { schema: { ...hidden, params: resourceParams, body: patchBody } },
    async (request, reply) =>
      resource(
        reply,
        await groups.patch(
          organizationOf(request),
          request.params.id,
          request.body.Operations,
          ifMatch(request),
        ),
      ),
  );
  app.delete('/Groups/:id', { schema: { ...hidden, params: resourceParams } }, async (request, reply) => {
    await groups.remove(organizationOf(request), request.params.id, ifMatch(request));
    return reply.code(204).send();
  });
}
