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
    await docs.register(fastifySwaggerUi, {
      routePrefix: '/docs',
      uiConfig: { deepLinking: true, validatorUrl: null },
      // The viewer's own policy (its inline script and style hashes), made as strict as the console's.
      staticCSP: true,
      transformStaticCSP: docsPolicy,
    });
  });
}

/**
 * The one `<style>` block swagger-ui-dist injects at run time (not among the plugin's hashes), allowed by its
 * hash rather than `'unsafe-inline'`; test/console/docs-page.test.ts names the new hash if an upgrade changes it.
 */
const VIEWER_INJECTED_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

/**
 * The reference viewer's Content-Security-Policy: the plugin's (which lists the hashes of the viewer's inline
 * script and style) without what the console's policy does not allow either: never framed
 * (`frame-ancestors 'none'`), no `https:` sources or outside validator, no `<base>`, forms only to Cadre.
 */
function docsPolicy(header: string): string {
  const directives = header
    .split(';')
    .map((directive) => directive.trim())
    .filter((directive) => directive && directive !== 'upgrade-insecure-requests')
    .map((directive) => {
      const [name, ...sources] = directive.split(/\s+/);
      if (name === 'frame-ancestors') return "frame-ancestors 'none'";
      if (name === 'base-uri') return "base-uri 'none'";
      const kept = sources.filter((source) => source !== 'https:' && source !== 'validator.swagger.io');
      if (name === 'style-src') kept.push(VIEWER_INJECTED_STYLE);
      return [name, ...kept].join(' ');
    });
  return [...directives, "connect-src 'self'", "form-action 'self'"].join('; ');
}
