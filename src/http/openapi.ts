import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** The OpenAPI 3.1 document is generated from the same zod schemas the routes validate with. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cadre',
        version,
        description:
          "Registry of Experts (`/registry`), the same registry in Perstack's wire contract " +
          '(`/api/registry/v1`), management API (`/api`), admin API (`/admin`). Management errors use the ' +
          'PublicApiError shape; registry errors (both registry faces) use `{code, error, reason}`.',
      },
      tags: [
        {
          name: 'Perstack-compatible registry',
          description:
            "The registry spoken as Perstack's client, runtime and CLI expect: whole records in lists and " +
            'versions, `minRuntimeVersion` always `v1.0` (Experts needing a newer runtime are left out), ' +
            '`{}` on delete, `latest` allowed among tags. See docs/perstack.md.',
        },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: `cadre_` followed by 40 characters.',
          },
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'The operator token (CADRE_ADMIN_TOKEN).',
          },
          consoleSession: { type: 'apiKey', in: 'cookie', name: 'cadre_session' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  // The reference viewer's pages and assets are not rate-limited: a scope of their own says so.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, rateLimit: false };
    });
    await docs.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
  });
}
