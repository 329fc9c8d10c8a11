import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { PRESET_KEYS } from '../oauth/index.js';
import type { IntegrationManagement } from './integrations.manage.js';
import { integrationSchema, registerIntegrationBody, updateIntegrationBody } from './integrations.schemas.js';

const tags = ['Organization'];
const config = { auth: 'principal' } as const;
const orgParams = z.object({
  org: z.string().min(1).max(64).meta({ description: 'Organization id or slug' }),
});
const presetParams = orgParams.extend({
  presetKey: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: `OAuth preset: ${PRESET_KEYS.join(', ')}` }),
});

/** Owners and admins register, update and remove the organization's integrations (integrations:manage). */
export function registerIntegrationManagementRoutes(app: App, manage: IntegrationManagement): void {
  app.post('/v1/organizations/:org/integrations', {
    config,
    schema: {
      operationId: 'createIntegration',
      summary:
        "Register the organization's OAuth client for a preset (integrations:manage); it starts unverified",
      description:
        'The client secret is write-only: encrypted at rest, never answered. The integration becomes verified ' +
        'through one successful authorization (GET /api/oauth/verify/{presetKey}). 409 when the organization ' +
        'already has an integration for the preset (update or remove it).',
      tags,
      security: bearerSecurity,
      params: orgParams,
      body: registerIntegrationBody,
      response: { 201: dataOf(integrationSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) =>
      reply.code(201).send({
        data: await manage.register(requirePrincipal(request), request.params.org, request.body),
      }),
  });

  app.patch('/v1/organizations/:org/integrations/:presetKey', {
    config,
    schema: {
      operationId: 'updateIntegration',
      summary:
        'Change an integration, e.g. rotate its client secret: a new version, unverified until verified again',
      tags,
      security: bearerSecurity,
      params: presetParams,
      body: updateIntegrationBody,
      response: { 200: dataOf(integrationSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => ({
      data: await manage.update(
        requirePrincipal(request),
        request.params.org,
        request.params.presetKey,
        request.body,
      ),
    }),
  });

  app.delete('/v1/organizations/:org/integrations/:presetKey', {
    config,
    schema: {
      operationId: 'deleteIntegration',
      summary: 'Remove an integration and destroy its client secrets (integrations:manage)',
      description:
        'Connections made with it answer 409 naming each in details (connections.<id>), unless cascade=true ' +
        'disconnects them first (tokens revoked at the provider, each audited).',
      tags,
      security: bearerSecurity,
      params: presetParams,
      querystring: z
        .object({
          cascade: z.enum(['true', 'false']).optional().meta({
            description: 'true: disconnect the connections made with it, then remove it',
          }),
        })
        .strict(),
      response: {
        204: z.null().meta({ description: 'Removed: no body' }),
        ...managementErrors(401, 403, 404, 409, 422),
      },
    },
    handler: async (request, reply) => {
      await manage.remove(
        requirePrincipal(request),
        request.params.org,
        request.params.presetKey,
        request.query.cascade === 'true',
      );
      return reply.code(204).send(null);
    },
  });
}
