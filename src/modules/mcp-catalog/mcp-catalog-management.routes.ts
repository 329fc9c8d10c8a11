import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, managementErrors } from '../../http/route-kit.js';
import {
  catalogLinkAnswer,
  catalogSettingsAnswer,
  catalogSettingsBody,
  expertSkillsQuery,
  managementServerParams,
  managementVersionParams,
  mcpApprovalParams,
  mcpApprovalsAnswer,
  mcpApprovalsQuery,
  mcpDecisionAnswer,
  publishedAnswer,
  serverUsersAnswer,
  skillEntriesAnswer,
  statusBody,
} from './mcp-catalog.schemas.js';
import type { McpCatalogService } from './mcp-catalog.service.js';
import { serverJsonSchema } from './server-json.schemas.js';
import type { createServerUsers } from './server-users.js';

const tags = ['MCP catalog'];
const config = { auth: 'principal' } as const;

/** The catalog's settings, publishing and status changes, in the management face (docs/mcp-registry.md). */
export function registerCatalogManagementRoutes(
  app: App,
  catalogs: McpCatalogService,
  users: ReturnType<typeof createServerUsers>,
): void {
  app.get('/v1/mcp/servers/:serverName/experts', {
    config,
    schema: {
      operationId: 'listMcpServerUsers',
      summary: "The organization's Experts whose skills run one of the server's versions (mcp:read)",
      description:
        "Each Expert's latest version whose skill runs a package (type, identifier, exact version) or an SSE " +
        "endpoint one of the server's versions (deleted ones left out) lists, as the publish-policy rule " +
        '"skills come from the catalog" matches them.',
      tags,
      security: bearerSecurity,
      params: managementServerParams,
      response: { 200: serverUsersAnswer, ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => ({
      data: await users.usersOf(requirePrincipal(request), request.params.serverName),
    }),
  });

  app.get('/v1/mcp/skills', {
    config,
    schema: {
      operationId: 'listMcpSkillEntries',
      summary:
        "The catalog server version each skill of one of the organization's Experts comes from (mcp:read)",
      description:
        "Skills that no server version lists are left out; another organization's Expert has none.",
      tags,
      security: bearerSecurity,
      querystring: expertSkillsQuery,
      response: { 200: skillEntriesAnswer, ...managementErrors(401, 403, 422) },
    },
    handler: async (request) => ({
      data: await users.entriesOf(requirePrincipal(request), request.query.expert, request.query.version),
    }),
  });

  app.get('/v1/mcp/catalog', {
    config,
    schema: {
      operationId: 'getMcpCatalog',
      summary: "The organization's MCP catalog: its access and the URL IDEs read it at (mcp:read)",
      tags,
      security: bearerSecurity,
      response: { 200: catalogSettingsAnswer, ...managementErrors(401, 403) },
    },
    handler: async (request) => ({ data: await catalogs.settings(requirePrincipal(request)) }),
  });

  app.put('/v1/mcp/catalog', {
    config,
    schema: {
      operationId: 'updateMcpCatalog',
      summary: 'Choose who reads the catalog: public, key (Bearer mcp:read) or link (mcp:write)',
      description: 'Audited as mcp_catalog.access_changed.',
      tags,
      security: bearerSecurity,
      body: catalogSettingsBody,
      response: { 200: catalogSettingsAnswer, ...managementErrors(401, 403, 422) },
    },
    handler: async (request) => ({
      data: await catalogs.setAccess(requirePrincipal(request), request.body.access),
    }),
  });

  app.post('/v1/mcp/catalog/link', {
    config,
    schema: {
      operationId: 'rotateMcpCatalogLink',
      summary: 'Make a new catalog link, ending the previous one; its URL is shown once (mcp:write)',
      description:
        'The link reads the catalog with no credential while access is `link`. Audited as mcp_catalog.link_rotated.',
      tags,
      security: bearerSecurity,
      response: { 201: catalogLinkAnswer, ...managementErrors(401, 403) },
    },
    handler: async (request, reply) => {
      reply.code(201);
      return { data: await catalogs.rotateLink(requirePrincipal(request)) };
    },
  });

  app.post('/v1/mcp/servers', {
    config,
    schema: {
      operationId: 'publishMcpServer',
      summary: 'Publish an MCP server version: the body is its server.json (mcp:write)',
      description:
        'Validated against the MCP Registry schema (2025-09-29), each problem named by its path. Versions ' +
        'are immutable (409 for one that exists); `latest` goes to the newest by semver. Under the publish ' +
        "policy's approvalRequiredForWidening, a version that adds a package, a remote host or a secret " +
        'variable waits for approval (`_meta["dev.cadre/catalog"].approval`): on no list, never `latest`. ' +
        'Audited as mcp_server.published.',
      tags,
      security: bearerSecurity,
      body: serverJsonSchema,
      response: { 201: publishedAnswer, ...managementErrors(401, 403, 409, 422) },
    },
    handler: async (request, reply) => {
      reply.code(201);
      return { data: await catalogs.publish(requirePrincipal(request), request.body) };
    },
  });

  app.patch('/v1/mcp/servers/:serverName/versions/:version/status', {
    config,
    schema: {
      operationId: 'updateMcpServerStatus',
      summary: "Change one version's status: active, deprecated (with a message) or deleted (mcp:write)",
      description:
        'A deleted version leaves the lists (mirrors see it through updated_since); `latest` moves to the ' +
        'newest version left. Audited as mcp_server.status_changed.',
      tags,
      security: bearerSecurity,
      params: managementVersionParams,
      body: statusBody,
      response: { 200: publishedAnswer, ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => ({
      data: await catalogs.setStatus(
        requirePrincipal(request),
        request.params.serverName,
        request.params.version,
        request.body,
      ),
    }),
  });

  app.get('/v1/mcp/approvals', {
    config,
    schema: {
      operationId: 'listMcpApprovals',
      summary: 'The catalog versions that waited for approval, in one state (mcp:read)',
      tags,
      security: bearerSecurity,
      querystring: mcpApprovalsQuery,
      response: { 200: mcpApprovalsAnswer, ...managementErrors(401, 403, 422) },
    },
    handler: async (request) => ({
      data: await catalogs.approvals.list(requirePrincipal(request), request.query.status),
    }),
  });

  for (const decision of ['approve', 'reject'] as const) {
    app.post(`/v1/mcp/approvals/:mcpApprovalId/${decision}`, {
      config,
      schema: {
        operationId: decision === 'approve' ? 'approveMcpServerVersion' : 'rejectMcpServerVersion',
        summary:
          decision === 'approve'
            ? 'Approve a waiting version: it joins the catalog, `latest` if newest (experts:approve; not its publisher)'
            : 'Refuse a waiting version: it never joins the catalog (experts:approve; not its publisher)',
        description: `Final; a second decision answers 409. Audited as mcp_server.${decision === 'approve' ? 'approved' : 'rejected'}.`,
        tags,
        security: bearerSecurity,
        params: mcpApprovalParams,
        response: { 200: mcpDecisionAnswer, ...managementErrors(401, 403, 404, 409, 422) },
      },
      handler: async (request) => ({
        data: await catalogs.approvals.decide(
          requirePrincipal(request),
          request.params.mcpApprovalId,
          decision,
        ),
      }),
    });
  }
}
