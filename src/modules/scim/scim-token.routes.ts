import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { scimTokenSchema, scimTokenWithSecretSchema } from './scim.schemas.js';
import type { ScimTokenService } from './scim-token.service.js';

const tags = ['SCIM'];
const config = { auth: 'principal' } as const;

/** The organization's SCIM token in the management API (owners: `organization:manage`; docs/scim.md). */
export function registerScimTokenRoutes(app: App, tokens: ScimTokenService): void {
  app.get('/v1/scim/token', {
    config,
    schema: {
      operationId: 'getScimToken',
      summary: 'Whether the organization has a SCIM token, and its start; never the token',
      tags,
      security: bearerSecurity,
      response: { 200: dataOf(scimTokenSchema.nullable()), ...managementErrors(401, 403) },
    },
    handler: async (request) => ({ data: await tokens.status(requirePrincipal(request)) }),
  });

  app.post('/v1/scim/token', {
    config,
    schema: {
      operationId: 'rotateScimToken',
      summary: 'Make a new SCIM token (shown once); the previous one stops working at once',
      tags,
      security: bearerSecurity,
      response: { 201: dataOf(scimTokenWithSecretSchema), ...managementErrors(401, 403) },
    },
    handler: async (request, reply) =>
      reply.code(201).send({ data: await tokens.rotate(requirePrincipal(request)) }),
  });

  app.delete('/v1/scim/token', {
    config,
    schema: {
      operationId: 'revokeScimToken',
      summary: 'Revoke the SCIM token: provisioning stops until a new one is made',
      tags,
      security: bearerSecurity,
      response: { 200: dataOf(scimTokenSchema), ...managementErrors(401, 403, 404) },
    },
    handler: async (request) => ({ data: await tokens.revoke(requirePrincipal(request)) }),
  });
}
