import { z } from 'zod';
import { type App, adminSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { createIntegrationBody, integrationSchema } from './integrations.schemas.js';
import type { IntegrationsService } from './integrations.service.js';

const tags = ['Admin'];
const config = { auth: 'admin' as const };
const orgParams = z.object({
  org: z.string().min(1).max(64).meta({ description: 'Organization id or slug' }),
});

/** Admin API for integrations (docs/admin-api.md): every POST appends an immutable Integration Version. */
export function registerIntegrationAdminRoutes(app: App, integrations: IntegrationsService): void {
  app.post('/v1/organizations/:org/integrations', {
    config,
    schema: {
      operationId: 'adminSaveIntegration',
      summary: "Register an organization's OAuth client for a preset, or change it (a new version)",
      tags,
      security: adminSecurity,
      params: orgParams,
      body: createIntegrationBody,
      response: {
        201: dataOf(z.object({ integration: integrationSchema })),
        ...managementErrors(401, 404, 422),
      },
    },
    handler: async (request, reply) => {
      const integration = await integrations.save(request.params.org, request.body);
      return reply.code(201).send({ data: { integration } });
    },
  });

  app.get('/v1/organizations/:org/integrations', {
    config,
    schema: {
      operationId: 'adminListIntegrations',
      summary: "An organization's integrations with their current versions (never the client secrets)",
      tags,
      security: adminSecurity,
      params: orgParams,
      response: {
        200: dataOf(z.object({ integrations: z.array(integrationSchema) })),
        ...managementErrors(401, 404, 422),
      },
    },
    handler: async (request) => ({ data: { integrations: await integrations.list(request.params.org) } }),
  });
}
