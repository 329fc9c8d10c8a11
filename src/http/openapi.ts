import { readFileSync } from 'node:fs';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

// Read from the sources both under tsx and from dist/ (as the migrations are): src/http/api-reference/.
const THEME = new URL('../../src/http/api-reference/', import.meta.url);
const LOGO = new URL('../../console/public/favicon.svg', import.meta.url);

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
      // Every tag an operation uses is declared here with a description (test/foundation.test.ts checks).
      tags: [
        {
          name: 'Registry',
          description:
            'Published Experts: list, search, read and diff immutable, semantically versioned versions ' +
            '(public), publish and manage versions (API key). See docs/registry.md.',
        },
        {
          name: 'Members',
          description:
            "The organization's people: list members, invite by email with a role (a capability link, shown " +
            'once, optionally mailed), change roles and remove members within the role ceilings, transfer the ' +
            'ownership, and follow an invitation link. See docs/organization-api.md, "Members and invitations".',
        },
        {
          name: 'Organization',
          description:
            'The caller and their organization: who am I, account settings (name, password), renaming the ' +
            'organization, projects with their environments and agents. See docs/organization-api.md.',
        },
        {
          name: 'API keys',
          description:
            'API keys with grants (organization, project, environment, agent). See docs/api-keys.md.',
        },
        {
          name: 'OAuth',
          description:
            "OAuth connections per project environment and the organization's own integrations (client " +
            'credentials per preset, write-only secrets, verification). See docs/oauth.md.',
        },
        { name: 'Audit', description: "The organization's audit log, filtered and exported." },
        { name: 'Events', description: 'The organization’s event feed. See docs/webhooks.md.' },
        {
          name: 'Webhooks',
          description: 'Webhook endpoints and their deliveries (Standard Webhooks). See docs/webhooks.md.',
        },
        { name: 'Publish policy', description: 'Rules every publish of the organization must meet.' },
        {
          name: 'MCP catalog',
          description:
            "Each organization's MCP servers, served in the MCP Registry's v0.1 API to IDEs (docs/mcp-registry.md).",
        },
        { name: 'Billing', description: 'Plans, subscriptions, checkout and portal. See docs/billing.md.' },
        {
          name: 'Domains',
          description:
            "The organization's email domains, proven by a DNS TXT record or a well-known file; a verified domain routes sign-in. See docs/domains.md.",
        },
        {
          name: 'Single sign-on',
          description:
            "The organization's OpenID provider, its group → role rules and enforcement with break-glass owners. See docs/sso.md.",
        },
        {
          name: 'SCIM',
          description:
            'The SCIM provisioning token. SCIM 2.0 itself (`/scim/v2`) describes itself at its discovery endpoints. See docs/scim.md.',
        },
        {
          name: 'Console sessions',
          description: 'Signing in to the console (cookie sessions with CSRF tokens). See docs/sessions.md.',
        },
        {
          name: 'CLI sign-in',
          description:
            '`cadre login`: the CLI asks, a signed-in person approves in the console, the CLI gets its own key. See docs/api-keys.md.',
        },
        { name: 'System', description: 'Health, readiness, metrics and this document.' },
        {
          name: 'Admin',
          description: 'The operator’s API (CADRE_ADMIN_TOKEN). See docs/admin-api.md.',
        },
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
    transformObject: schemasInNameOrder,
  });
  // The reference viewer's pages and assets are not rate-limited: a scope of their own says so.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, rateLimit: false };
    });
    await docs.register(fastifySwaggerUi, {
      routePrefix: '/docs',
      // BaseLayout: the viewer without Swagger's top bar (its logo, "Explore" box and theme toggle); Cadre's
      // header takes its place (api-reference/reference.js). No deep links: they put a link inside each
      // operation's toggle button, an interactive element within another.
      uiConfig: { deepLinking: false, validatorUrl: null, layout: 'BaseLayout' },
      theme: {
        title: 'API reference · Cadre',
        css: [{ filename: 'reference.css', content: readFileSync(new URL('reference.css', THEME), 'utf8') }],
        js: [{ filename: 'reference.js', content: readFileSync(new URL('reference.js', THEME), 'utf8') }],
        favicon: [
          {
            filename: 'cadre.svg',
            rel: 'icon',
            sizes: 'any',
            type: 'image/svg+xml',
            content: readFileSync(LOGO),
          },
        ],
      },
      // The viewer's own policy (its inline script and style hashes), made as strict as the console's.
      staticCSP: true,
      transformStaticCSP: docsPolicy,
    });
  });
}

/**
 * The document with its named schemas in name order. The zod registry lists them in the order their modules
 * were first evaluated, so without this an import moved between modules would reorder /openapi.json.
 */
const schemasInNameOrder: typeof jsonSchemaTransformObject = (input) => {
  const document = jsonSchemaTransformObject(input);
  if ('components' in document && document.components?.schemas) {
    const schemas = document.components.schemas;
    const byName = Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    document.components.schemas = Object.fromEntries(byName) as typeof schemas;
  }
  return document;
};

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
