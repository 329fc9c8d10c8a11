import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { parseOutboundAllowance } from '../../src/lib/outbound/address-policy.js';
import type { apiKeySchema, createApiKeyBody } from '../../src/modules/api-keys/api-keys.schemas.js';
import {
  type Grant,
  PERMISSIONS,
  type Permission,
  projectGrantSchema,
} from '../../src/modules/auth/grants.js';
import type { checkoutBody, portalBody } from '../../src/modules/billing/billing.schemas.js';
import type { ConnectionRecord } from '../../src/modules/connections/index.js';
import { events } from '../../src/modules/events/events.tables.js';
import type {
  perstackPublishBody,
  perstackUpdateBody,
} from '../../src/modules/registry-faces/perstack.schemas.js';
import type {
  expertAnswerSchema,
  publishExpertBody,
  updateExpertBody,
} from '../../src/modules/registry-faces/registry.schemas.js';
import type { agentSchema } from '../../src/modules/tenancy/tenancy.schemas.js';
import { webhookEndpoints } from '../../src/modules/webhooks/webhooks.tables.js';
import { npmServer as mcpServerJson } from '../mcp/helpers.js';
import { CLIENT_ID, CLIENT_SECRET, connect, registerIntegration, startOAuthWorld } from '../oauth/harness.js';
import { expertBody } from '../registry/helpers.js';
import type { DataOf } from '../support/answers.js';
import {
  addMember,
  createKey,
  createOrganization,
  createProject,
  type TestOrganization,
} from '../support/fixtures.js';
import type { HttpResult } from '../support/http.js';
import { ADMIN_TOKEN } from '../support/server.js';
import { type ConsoleLogin, login, setPassword } from '../support/session.js';
import {
  bearerOperations,
  documentedShape,
  type OpenApiDocument,
  type Operation,
} from './openapi-operations.js';

/**
 * One suite for every operation `/openapi.json` documents with Bearer security: the list comes from the
 * document, so a new route is checked as soon as it is documented. What cannot be derived from the
 * document (the permission an operation needs, a body that passes validation, an answer that differs for a
 * reason) is in the tables below, and the coverage test fails until a new operation has its line there.
 */

/** The permission each API-key operation checks (docs/api-keys.md), or why it checks none. */
const PERMISSION_OF: Record<string, Permission | { none: string }> = {
  listApiKeys: 'api-keys:read',
  createApiKey: 'api-keys:create',
  getApiKey: 'api-keys:read',
  revokeApiKey: 'api-keys:revoke',
  listBillingPlans: 'billing:read',
  createCheckoutSession: 'billing:manage',
  createPortalSession: 'billing:manage',
  getBillingSubscription: 'billing:read',
  getBillingUsage: 'billing:read',
  startOAuth: 'projects:operate',
  completeOAuth: {
    none:
      'every outcome is a 302 back to the console (a browser navigation); a missing projects:operate ' +
      'answers oauth_error=forbidden there (test/oauth/oauth-failures.test.ts)',
  },
  listConnections: 'projects:operate',
  deleteConnection: 'projects:operate',
  listAuditEvents: 'audit:read',
  exportAuditEvents: 'audit:read',
  listEvents: 'events:read',
  listWebhookEndpoints: 'webhooks:manage',
  createWebhookEndpoint: 'webhooks:manage',
  getWebhookEndpoint: 'webhooks:manage',
  updateWebhookEndpoint: 'webhooks:manage',
  deleteWebhookEndpoint: 'webhooks:manage',
  rotateWebhookEndpointSecret: 'webhooks:manage',
  listWebhookDeliveries: 'webhooks:manage',
  testWebhookEndpoint: 'webhooks:manage',
  resendWebhookEvent: 'webhooks:manage',
  getMe: { none: 'any valid credential may ask who it is; the answer lists what it may do' },
  listMembers: 'members:read',
  createInvitation: 'members:manage',
  listInvitations: 'members:manage',
  revokeInvitation: 'members:manage',
  copyInvitationLink: 'members:manage',
  setMemberRole: 'members:manage',
  removeMember: 'members:manage',
  transferOwnership: 'members:manage',
  listProjects: 'projects:read',
  getProject: 'projects:read',
  listIntegrations: 'integrations:read',
  createProject: 'projects:write',
  updateProject: 'projects:write',
  deleteProject: 'projects:write',
  createEnvironment: 'projects:write',
  renameEnvironment: 'projects:write',
  deleteEnvironment: 'projects:write',
  createAgent: 'projects:write',
  renameAgent: 'projects:write',
  deleteAgent: 'projects:write',
  updateMe: { none: 'every user may rename themselves' },
  changePassword: { none: 'every user may change their own password; the current one is required' },
  updateOrganization: 'organization:manage',
  createIntegration: 'integrations:manage',
  updateIntegration: 'integrations:manage',
  deleteIntegration: 'integrations:manage',
  verifyIntegration: 'integrations:manage',
  listOAuthPresets: { none: 'the preset catalogue is the same for every organization' },
  publishExpert: 'experts:write',
  updateExpert: 'experts:write',
  deleteExpert: 'experts:delete',
  perstackPublishExpert: 'experts:write',
  perstackUpdateExpert: 'experts:write',
  perstackDeleteExpert: 'experts:delete',
  getPublishPolicy: 'publish-policy:read',
  updatePublishPolicy: 'publish-policy:manage',
  listRegistryApprovals: 'publish-policy:read',
  approveRegistryVersion: 'experts:approve',
  listMcpApprovals: 'mcp:read',
  approveMcpServerVersion: 'experts:approve',
  rejectMcpServerVersion: 'experts:approve',
  rejectRegistryVersion: 'experts:approve',
  getMcpCatalog: 'mcp:read',
  updateMcpCatalog: 'mcp:write',
  rotateMcpCatalogLink: 'mcp:write',
  publishMcpServer: 'mcp:write',
  updateMcpServerStatus: 'mcp:write',
  listMcpServerUsers: 'mcp:read',
  listMcpSkillEntries: 'mcp:read',
  getSsoProvider: 'organization:manage',
  updateSsoProvider: 'organization:manage',
  deleteSsoProvider: 'organization:manage',
  updateSsoEnforcement: 'organization:manage',
  startSsoTest: 'organization:manage',
  listDomains: 'members:read',
  getDomain: 'members:read',
  claimDomain: 'organization:manage',
  verifyDomain: 'organization:manage',
  deleteDomain: 'organization:manage',
  getScimToken: 'organization:manage',
  rotateScimToken: 'organization:manage',
  revokeScimToken: 'organization:manage',
  getSsoRoleMappings: 'organization:manage',
  updateSsoRoleMappings: 'organization:manage',
};

/** API-key operations that name no organization-scoped resource, so there is no other organization's to ask for. */
const NO_FOREIGN_RESOURCE: Record<string, string> = {
  listApiKeys: "lists the caller's own organization's keys; no parameter names an organization",
  createApiKey:
    "creates in the caller's own organization; foreign ids in its grants are 422 (test/api-keys.test.ts)",
  listBillingPlans: 'the plan catalogue is the same for every organization',
  completeOAuth: 'the flow is named by its state cookie, bound to the user who started it (oauth-failures)',
  getMe: 'answers about the caller only',
  listEvents: "lists the caller's own organization's events; no parameter names an organization",
  listWebhookEndpoints: "lists the caller's own organization's endpoints; no parameter names an organization",
  listDomains: "lists the caller's own organization's domains; no parameter names an organization",
  claimDomain: "claims for the caller's own organization; no parameter names an organization",
  getScimToken: "the caller's own organization's SCIM token; no parameter names an organization",
  rotateScimToken: "the caller's own organization's SCIM token; no parameter names an organization",
  revokeScimToken: "the caller's own organization's SCIM token; no parameter names an organization",
  createWebhookEndpoint: "creates in the caller's own organization; no parameter names an organization",
  listProjects: "lists the caller's own organization's projects only",
  createProject: "creates in the caller's own organization; no parameter names an organization",
  updateMe: 'changes the caller only',
  changePassword: 'changes the caller only',
  verifyIntegration: "names a preset only: verifies the caller's own organization's integration for it",
  listOAuthPresets: 'the preset catalogue is the same for every organization',
  publishExpert: "publishes under the caller's own organization; a foreign scope is 403 (docs/registry.md)",
  perstackPublishExpert: 'the same publish as publishExpert, through the Perstack-compatible face',
  getPublishPolicy: "reads the caller's own organization's policy; no parameter names an organization",
  updatePublishPolicy: "changes the caller's own organization's policy; no parameter names an organization",
  listRegistryApprovals:
    "lists the caller's own organization's approvals; no parameter names an organization",
  getMcpCatalog: "reads the caller's own organization's MCP catalog; no parameter names an organization",
  updateMcpCatalog: "changes the caller's own organization's MCP catalog; no parameter names an organization",
  rotateMcpCatalogLink: "rotates the caller's own organization's catalog link; no parameter names one",
  publishMcpServer: "publishes into the caller's own organization's MCP catalog; no parameter names one",
  updateMcpServerStatus:
    "server names are the caller's own organization's catalog's: another's same name is simply not there",
  listMcpServerUsers:
    "server names are the caller's own organization's catalog's: another's same name is simply not there",
  listMcpApprovals: "lists the caller's own organization's catalog approvals; no parameter names one",
  listMcpSkillEntries:
    "reads the caller's own organization's catalog and Experts; another's Expert has no entries (an empty list)",
  getSsoRoleMappings: "reads the caller's own organization's rules; no parameter names an organization",
  updateSsoRoleMappings: "changes the caller's own organization's rules; no parameter names an organization",
  getSsoProvider: "reads the caller's own organization's provider; no parameter names an organization",
  updateSsoProvider: "changes the caller's own organization's provider; no parameter names an organization",
  deleteSsoProvider: "removes the caller's own organization's provider; no parameter names an organization",
  updateSsoEnforcement:
    "changes the caller's own organization's enforcement; no parameter names an organization",
  startSsoTest: "tests the caller's own organization's provider; no parameter names an organization",
};

/** Operations where another organization's resource does not read as absent, with why. */
const FOREIGN_ANSWER: Record<string, { status: number; message: RegExp; reason: string }> = {
  updateExpert: {
    status: 403,
    message: /belongs to another organization/,
    reason:
      'registry Experts are public: their existence is no secret, so changing one is refused, not hidden',
  },
  deleteExpert: {
    status: 403,
    message: /belongs to another organization/,
    reason:
      'registry Experts are public: their existence is no secret, so deleting one is refused, not hidden',
  },
};
// The Perstack-compatible face changes and deletes through the same service, refusing in Perstack's
// documented status for another organization's Expert (400; docs/perstack.md).
FOREIGN_ANSWER.perstackUpdateExpert = {
  ...FOREIGN_ANSWER.updateExpert!,
  status: 400,
  reason: "refused as on /registry, in the status Perstack's documentation gives (400)",
};
FOREIGN_ANSWER.perstackDeleteExpert = {
  ...FOREIGN_ANSWER.deleteExpert!,
  status: 400,
  reason: "refused as on /registry, in the status Perstack's documentation gives (400)",
};

/** Why admin operations get only the 401 checks. */
const ADMIN_ONLY_401 =
  'the admin token belongs to no organization, carries no permissions and is never a console session';

interface Tenant {
  org: TestOrganization;
  projectId: string;
  environmentId: string;
  connectionId: string;
  /** What parameterValue made for requests, to check afterwards that refused requests changed nothing. */
  made: { apiKeyIds: string[]; expertKeys: string[] };
}

type ApiKeyAnswer = DataOf<typeof apiKeySchema>;
type ExpertAnswer = z.infer<typeof expertAnswerSchema>;
type ConnectionsAnswer = { data: { connections: ConnectionRecord[] } };

let serial = 0;
/** An event of the home organization, for resendWebhookEvent's body (set once the tenants exist). */
let homeEventId = '';
const expertName = (tenant: Tenant) => `@${tenant.org.slug}/security-${serial++}`;

/** A body that passes validation, so the answer shows the check under test and not a 422. */
const BODIES: Record<string, (tenant: Tenant) => unknown> = {
  createInvitation: () => ({ email: `security-${serial++}@invited.test`, role: 'member' }),
  setMemberRole: () => ({ role: 'admin' }),
  // To the owner itself: answered (a transfer to the current owner changes nothing), and the suite's owner stays.
  transferOwnership: (tenant) => ({ userId: tenant.org.ownerId }),
  createApiKey: (): z.input<typeof createApiKeyBody> => ({
    name: 'security suite',
    grants: { type: 'organization', permissions: ['billing:read'] },
  }),
  createCheckoutSession: (): z.input<typeof checkoutBody> => ({
    planKey: 'team',
    successUrl: 'https://app.example.test/billing/done',
    cancelUrl: 'https://app.example.test/billing',
  }),
  createPortalSession: (): z.input<typeof portalBody> => ({
    returnUrl: 'https://app.example.test/billing',
  }),
  publishExpert: (tenant): z.input<typeof publishExpertBody> => expertBody(expertName(tenant)),
  updateExpert: (): z.input<typeof updateExpertBody> => ({ status: 'deprecated' }),
  perstackPublishExpert: (tenant): z.input<typeof perstackPublishBody> => ({
    ...expertBody(expertName(tenant)),
    tags: ['latest'],
  }),
  perstackUpdateExpert: (): z.input<typeof perstackUpdateBody> => ({ status: 'deprecated' }),
  createProject: () => ({ slug: `security-${serial++}`, name: 'Security suite' }),
  updateProject: () => ({ name: `Renamed ${serial++}` }),
  createEnvironment: () => ({ name: `env-${serial++}` }),
  renameEnvironment: () => ({ name: `env-${serial++}` }),
  createAgent: () => ({ name: `agent ${serial++}` }),
  renameAgent: () => ({ name: `agent ${serial++}` }),
  updateMe: () => ({ name: 'Security Suite' }),
  changePassword: () => ({ currentPassword: 'not the password', newPassword: 'a long enough new password' }),
  updateOrganization: () => ({ name: 'Security suite organization' }),
  // slack: the one preset the suite's organizations have no integration for (registering twice is 409).
  createIntegration: () => ({
    presetKey: 'slack',
    clientId: 'security-suite',
    clientSecret: 'security-secret',
  }),
  updateIntegration: () => ({ clientSecret: `rotated by the suite ${serial++}` }),
  createWebhookEndpoint: () => ({
    url: 'https://hooks.example.com/security',
    eventTypes: ['expert.published'],
  }),
  updateWebhookEndpoint: () => ({ description: `changed by the suite ${serial++}` }),
  claimDomain: () => ({ domain: `security-${serial++}.example` }),
  // The file proof: no DNS server to wait for; the name does not resolve, so the check fails at once.
  verifyDomain: () => ({ method: 'http' }),
  // Changes nothing the other checks rely on (their Experts run npx with the runtime's base package).
  updatePublishPolicy: () => ({ requirePinnedVersions: false }),
  updateMcpCatalog: () => ({ access: 'key' }),
  updateSsoRoleMappings: () => ({ defaultRole: 'member', rules: [] }),
  updateSsoProvider: () => ({ issuer: world.provider.issuer, clientId: CLIENT_ID }),
  updateSsoEnforcement: () => ({ enforced: false }),
  startSsoTest: () => ({}),
  publishMcpServer: () => mcpServerJson(`com.example.security/server-${serial++}`),
  updateMcpServerStatus: () => ({ status: 'deprecated', statusMessage: 'the security suite deprecates it' }),
  // One of the home organization's own events (another organization's endpoint is refused before it is read).
  resendWebhookEvent: () => ({ eventId: homeEventId }),
};

/**
 * Operations that change or delete a project, an environment or an agent: each request names fresh ones
 * (a project with its two environments and an agent), so the suite never alters what other checks use, and a
 * delete that gets through is not refused for the connection the tenant's own environment holds.
 */
const FRESH_PROJECT = new Set([
  'updateProject',
  'deleteProject',
  'createEnvironment',
  'renameEnvironment',
  'deleteEnvironment',
  'createAgent',
  'renameAgent',
  'deleteAgent',
]);

/** What a project grant may hold (src/modules/auth/grants.ts); every other permission is organization-wide. */
const SCOPED_PERMISSIONS = projectGrantSchema.shape.permissions.element.options;
const isScoped = (permission: Permission) =>
  (SCOPED_PERMISSIONS as readonly Permission[]).includes(permission);
const ORGANIZATION_PARAMS = ['org', 'organizationIdOrSlug'];
const FOREIGN_PARAMS = [
  ...ORGANIZATION_PARAMS,
  'projectId',
  'environmentId',
  'connectionId',
  'apiKeyId',
  'expertKey',
  'agentId',
  'webhookEndpointId',
  'approvalId',
  'mcpApprovalId',
  'domainId',
];
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

// The suite names other organizations' resources on purpose, once or twice per operation: more than the
// foreign-resource limit (tested on its own in test/rate-limits.test.ts) allows in one window.
const world = await startOAuthWorld({
  rateLimits: { authFailures: 1_000_000 },
  foreignResources: { limit: 1_000_000 },
  // The home organization's single sign-on provider is the suite's OpenID provider on loopback.
  sso: { allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance },
});
const { server } = world;
const document = (await server.request<OpenApiDocument>('GET', '/openapi.json')).body;
const operations = bearerOperations(document);
const memberOperations = operations.filter((op) => op.schemes.includes('apiKey'));
const adminOperations = operations.filter((op) => op.schemes.includes('adminToken'));
const shapeError = documentedShape(document);

// Every organization-scoped path is also served as /api/v1/organizations/{org}/… (src/http/path-names.ts),
// documented as its own operation (`<id>InOrganization`): it checks what its short form checks and takes the
// same body, so it takes the short form's lines in the tables. Its `{org}` names an organization, so it is
// asked for another organization's resources like every operation with one.
for (const op of memberOperations) {
  const short = op.id.replace(/InOrganization$/, '');
  if (short === op.id) continue;
  if (PERMISSION_OF[short] !== undefined) PERMISSION_OF[op.id] = PERMISSION_OF[short]!;
  if (BODIES[short]) BODIES[op.id] = BODIES[short]!;
  if (FRESH_PROJECT.has(short)) FRESH_PROJECT.add(op.id);
  if (FOREIGN_ANSWER[short]) FOREIGN_ANSWER[op.id] = FOREIGN_ANSWER[short]!;
}

const foreignParams = (op: Operation) =>
  [...op.pathParams, ...op.requiredQuery].filter((name) => FOREIGN_PARAMS.includes(name));

let home: Tenant;
let other: Tenant;
let session: ConsoleLogin;
let revokedKey: string;
/** Grants of the three narrower variants, each with every permission it may hold, on `home`'s resources. */
let narrowGrants: Grant[];

async function tenant(org: TestOrganization, projectId: string, environmentId: string): Promise<Tenant> {
  const connected = await connect(world, org.ownerKey, { projectId, environmentId });
  expect(connected.params.oauth_status, connected.location.href).toBe('success');
  const connectionId = connected.params.connection_id!;
  return { org, projectId, environmentId, connectionId, made: { apiKeyIds: [], expertKeys: [] } };
}

beforeAll(async () => {
  home = await tenant(world.org, world.projectId, world.environmentId);
  const otherOrg = await createOrganization(server, 'team');
  const otherProject = await createProject(server, otherOrg);
  await registerIntegration(world, otherOrg.id);
  for (const presetKey of Object.values(PRESET_OF)) {
    await registerIntegration(world, world.org.id, { presetKey });
  }
  other = await tenant(otherOrg, otherProject.project.id, otherProject.environments[0]!.id);
  await ensureSsoProvider();
  await setPassword(server, home.org.ownerId);
  session = await login(server, `owner@${home.org.slug}.test`);
  const revoked = await createKey(server, home.org, home.org.ownerId);
  expect(
    (await server.request('DELETE', `/api/v1/api-keys/${revoked.id}`, { key: revoked.key })).status,
  ).toBe(200);
  revokedKey = revoked.key;
  const [event] = await server.context.database.db
    .select({ id: events.id })
    .from(events)
    .where(eq(events.organizationId, home.org.id))
    .limit(1);
  homeEventId = event!.id;
  const agent = await server.admin<{ data: { agent: z.infer<typeof agentSchema> } }>(
    'POST',
    `/admin/v1/projects/${home.projectId}/agents`,
    { name: 'security-suite' },
  );
  expect(agent.status, agent.text).toBe(201);
  narrowGrants = [
    { type: 'project', projectIds: [home.projectId], permissions: [...SCOPED_PERMISSIONS] },
    { type: 'environment', environmentIds: [home.environmentId], permissions: [...SCOPED_PERMISSIONS] },
    { type: 'agent', agentIds: [agent.body.data.agent.id], permissions: ['agents:run'] },
  ];
});
afterAll(() => world.close());

/** A real value for a parameter, in `tenant`: an API key or Expert version is made fresh for each request. */
async function parameterValue(tenant: Tenant, name: string): Promise<string> {
  switch (name) {
    case 'org':
    case 'organizationIdOrSlug':
      return tenant.org.slug;
    case 'projectId':
      return tenant.projectId;
    case 'environmentId':
      return tenant.environmentId;
    case 'connectionId':
      return tenant.connectionId;
    case 'userId':
      return tenant.org.ownerId;
    case 'presetKey':
      return 'oidc';
    case 'format':
      return 'csv';
    // A fresh MCP server version for each request: a status change that gets through touches no other's.
    case 'serverName': {
      const name = `com.example.security/status-${serial++}`;
      const res = await server.request('POST', '/api/v1/mcp/servers', {
        key: tenant.org.ownerKey,
        body: mcpServerJson(name),
      });
      expect(res.status, res.text).toBe(201);
      // Once an approval check turned the rule on, a new server waits: the tenant's other admin approves it.
      const waiting = (res.body as { data: { _meta: Record<string, { id?: string; approval?: unknown }> } })
        .data._meta['dev.cadre/catalog'];
      if (waiting?.approval) {
        const approved = await server.request('POST', `/api/v1/mcp/approvals/${waiting.id}/approve`, {
          key: publishers.get(tenant)!,
        });
        expect(approved.status, approved.text).toBe(200);
      }
      return name;
    }
    case 'version':
      return '1.0.0';
    case 'expert':
      return 'security-expert';
    // A fresh member or invitation for each request: a role change or removal that gets through touches no other check's.
    case 'memberId':
      return addMember(server, tenant.org, 'member');
    case 'invitationId': {
      const res = await server.request<{ data: { id: string } }>(
        'POST',
        `/api/v1/organizations/${tenant.org.slug}/invitations`,
        { key: tenant.org.ownerKey, body: { email: `security-${serial++}@invited.test`, role: 'member' } },
      );
      expect(res.status, res.text).toBe(201);
      return res.body.data.id;
    }
    // A fresh endpoint for each request: a deletion that gets through touches no other check's.
    case 'webhookEndpointId': {
      // The suite's earlier endpoints go first: an organization holds at most 16.
      await server.context.database.db
        .delete(webhookEndpoints)
        .where(eq(webhookEndpoints.organizationId, tenant.org.id));
      const res = await server.request<{ data: { endpoint: { id: string } } }>(
        'POST',
        '/api/v1/webhook-endpoints',
        {
          key: tenant.org.ownerKey,
          body: { url: 'https://hooks.example.com/security', eventTypes: ['expert.published'] },
        },
      );
      expect(res.status, res.text).toBe(201);
      return res.body.data.endpoint.id;
    }
    case 'domainId': {
      const res = await server.request<{ data: { id: string } }>('POST', '/api/v1/domains', {
        key: tenant.org.ownerKey,
        body: { domain: `security-${serial++}.example` },
      });
      expect(res.status, res.text).toBe(201);
      return res.body.data.id;
    }
    case 'apiKeyId': {
      const { id } = await createKey(server, tenant.org, tenant.org.ownerId);
      tenant.made.apiKeyIds.push(id);
      return id;
    }
    // A fresh version awaiting approval for each request, published by an admin of the tenant (not the owner,
    // whose keys the checks use: a publisher may not decide on their own version).
    case 'approvalId':
      return pendingApproval(tenant);
    // The same for the MCP catalog: a fresh server, waiting, published by that admin.
    case 'mcpApprovalId':
      return pendingMcpApproval(tenant);
    case 'expertKey': {
      const name = expertName(tenant);
      const res = await server.request('POST', '/registry/experts', {
        key: tenant.org.ownerKey,
        body: expertBody(name),
      });
      expect(res.status, res.text).toBe(200);
      tenant.made.expertKeys.push(`${name}@1.0.0`);
      return `${name}@1.0.0`;
    }
    default:
      throw new Error(
        `the security suite has no value for the parameter {${name}}: add it to parameterValue`,
      );
  }
}

const publishers = new Map<Tenant, string>();

async function pendingApproval(tenant: Tenant): Promise<string> {
  let publisher = publishers.get(tenant);
  if (!publisher) {
    publisher = (await createKey(server, tenant.org, await addMember(server, tenant.org, 'admin'))).key;
    publishers.set(tenant, publisher);
    const policy = await server.request('PUT', '/api/v1/organization/publish-policy', {
      key: tenant.org.ownerKey,
      body: { approvalRequiredForWidening: true },
    });
    expect(policy.status, policy.text).toBe(200);
  }
  const name = expertName(tenant);
  const first = await server.request('POST', '/registry/experts', { key: publisher, body: expertBody(name) });
  expect(first.status, first.text).toBe(200);
  const wider = expertBody(name, '1.1.0', {
    skills: {
      ...expertBody(name).skills,
      search: { type: 'mcpSseSkill', endpoint: 'https://s.example.com/sse' },
    },
  });
  const res = await server.request<{ data: { expert: { approval?: { id: string } } } }>(
    'POST',
    '/registry/experts',
    {
      key: publisher,
      body: wider,
    },
  );
  expect(res.status, res.text).toBe(200);
  return res.body.data.expert.approval!.id;
}

async function pendingMcpApproval(tenant: Tenant): Promise<string> {
  await pendingApproval(tenant); // turns the rule on and makes the publishing admin
  const res = await server.request<{ data: { _meta: Record<string, { id: string }> } }>(
    'POST',
    '/api/v1/mcp/servers',
    { key: publishers.get(tenant)!, body: mcpServerJson(`com.example.security/gated-${serial++}`) },
  );
  expect(res.status, res.text).toBe(201);
  return res.body.data._meta['dev.cadre/catalog']!.id;
}

async function freshProject(tenant: Tenant): Promise<Record<string, string>> {
  const made = await createProject(server, tenant.org);
  const agent = await server.admin<{ data: { agent: z.infer<typeof agentSchema> } }>(
    'POST',
    `/admin/v1/projects/${made.project.id}/agents`,
    { name: 'security-suite' },
  );
  expect(agent.status, agent.text).toBe(201);
  return {
    projectId: made.project.id,
    environmentId: made.environments[0]!.id,
    agentId: agent.body.data.agent.id,
  };
}

/**
 * The integration each operation changing one names: not the oidc one the connect flow of other checks needs
 * verified (an update makes a new, unverified version), and not the same for an update and a removal.
 */
const PRESET_OF: Record<string, string> = { updateIntegration: 'notion', deleteIntegration: 'linear' };

/** The home organization's single sign-on provider, (re)registered: it is one per organization, and deleted. */
async function ensureSsoProvider() {
  const sso = await server.request('PUT', '/api/v1/sso/provider', {
    key: home.org.ownerKey,
    body: { issuer: world.provider.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
  });
  expect(sso.status, sso.text).toBe(200);
}

/**
 * Operations on the provider itself: the short and the long form each read, change and delete the one
 * provider, so each request finds it registered again.
 */
const NEEDS_SSO_PROVIDER = new Set(['getSsoProvider', 'updateSsoProvider', 'deleteSsoProvider']);

async function paramsOf(tenant: Tenant, op: Operation): Promise<Record<string, string>> {
  const params: Record<string, string> = {};
  if (NEEDS_SSO_PROVIDER.has(op.id.replace(/InOrganization$/, ''))) await ensureSsoProvider();
  const fresh: Record<string, string> = FRESH_PROJECT.has(op.id) ? await freshProject(tenant) : {};
  if (PRESET_OF[op.id]) fresh.presetKey = PRESET_OF[op.id]!;
  for (const name of [...op.pathParams, ...op.requiredQuery])
    params[name] = fresh[name] ?? (await parameterValue(tenant, name));
  return params;
}

type Credential =
  | { kind: 'none' }
  | { kind: 'authorization'; header: string }
  | { kind: 'session'; csrf: 'valid' | 'missing' | 'wrong' };

const bearer = (key: string): Credential => ({ kind: 'authorization', header: `Bearer ${key}` });

/** Sends `op` with `params` filled in, as `credential`, with `body` (plus the CSRF token where asked). */
function call(op: Operation, params: Record<string, string>, credential: Credential, body?: unknown) {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]!));
  const query = new URLSearchParams(
    op.requiredQuery.map((name): [string, string] => [name, params[name]!]),
  ).toString();
  const headers: Record<string, string> = {};
  if (op.headers.includes('idempotency-key')) headers['idempotency-key'] = randomBytes(8).toString('hex');
  if (credential.kind === 'authorization') headers.authorization = credential.header;
  let sent = body;
  if (credential.kind === 'session') {
    headers.cookie = session.cookie;
    const token = credential.csrf === 'valid' ? session.csrfToken : 'not-the-token';
    if (credential.csrf !== 'missing') {
      if (op.csrfInBody) sent = { ...(body as object), csrfToken: token };
      else headers['x-csrf-token'] = token;
    }
  }
  return server.request(op.method, `${path}${query ? `?${query}` : ''}`, {
    headers,
    ...(sent === undefined ? {} : { body: sent }),
  });
}

function validBody(op: Operation, tenant: Tenant): unknown {
  if (!op.hasBody) return undefined;
  const body = BODIES[op.id];
  if (!body) throw new Error(`the security suite has no body for ${op.id}: add one to BODIES`);
  return body(tenant);
}

/** The status, the documented error shape for it, and (management errors) the code and request id. */
function expectRefused(op: Operation, res: HttpResult, status: number, code: string, message?: RegExp) {
  const where = `${op.method} ${op.path}: ${res.text.slice(0, 300)}`;
  expect(res.status, where).toBe(status);
  expect(shapeError(op, status, res.body), where).toBeUndefined();
  const body = res.body as { error?: { code: string; message: string; requestId: string }; reason?: string };
  if (typeof body.error === 'object') {
    expect(body.error.code, where).toBe(code);
    expect(body.error.requestId).toBe(res.headers.get('x-request-id'));
  }
  if (message) expect(body.error?.message ?? body.reason, where).toMatch(message);
}

describe('the operations under test', () => {
  it('are every Bearer operation of /openapi.json, and include the API-key and admin endpoints', () => {
    const ids = operations.map((op) => op.id);
    expect(ids).toEqual(
      expect.arrayContaining(['listApiKeys', 'createApiKey', 'revokeApiKey', 'adminCreateOrganization']),
    );
    expect(operations.find((op) => op.id === 'createApiKey')?.path).toBe('/api/v1/api-keys');
    expect(memberOperations.length).toBeGreaterThanOrEqual(20);
    expect(adminOperations.length).toBeGreaterThanOrEqual(10);
    // Each operation is either a member's (API key or console session) or the operator's, never neither.
    expect(
      operations.filter((op) => !memberOperations.includes(op) && !adminOperations.includes(op)),
    ).toEqual([]);
    expect(memberOperations.filter((op) => adminOperations.includes(op))).toEqual([]);
  });

  it('every API-key operation has its permission (or why none) and, if it takes one, a valid body', () => {
    const memberIds = memberOperations.map((op) => op.id).sort();
    expect(Object.keys(PERMISSION_OF).sort()).toEqual(memberIds);
    const withBody = memberOperations.filter((op) => op.hasBody).map((op) => op.id);
    expect(Object.keys(BODIES).sort()).toEqual(withBody.sort());
  });

  it('every API-key operation either names a foreign resource or says why it cannot', () => {
    const without = memberOperations.filter((op) => foreignParams(op).length === 0).map((op) => op.id);
    expect(Object.keys(NO_FOREIGN_RESOURCE).sort()).toEqual(without.sort());
    for (const id of Object.keys(FOREIGN_ANSWER)) expect(memberOperations.map((op) => op.id)).toContain(id);
  });
});

const unknownKey = () =>
  `cadre_${[...randomBytes(40)].map((byte) => '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'[byte % 62]).join('')}`;

/** `[title, operation]` pairs: the title names the operation as the document does. */
const cases = (list: Operation[]) =>
  list.map((op): [string, Operation] => [`${op.method} ${op.path} (${op.id})`, op]);

describe.each(cases(memberOperations))('%s', (_title, op) => {
  // Authentication runs before the body is read: an invalid body still answers 401.
  const invalidBody = op.hasBody ? {} : undefined;

  it('no credential: 401 with WWW-Authenticate, before validation', async () => {
    const res = await call(op, await paramsOf(home, op), { kind: 'none' }, invalidBody);
    expectRefused(op, res, 401, 'unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('a malformed, unknown or revoked key, or the admin token: 401', async () => {
    const params = await paramsOf(home, op);
    const headers = [
      'Bearer nonsense',
      'Bearer',
      `Basic ${Buffer.from('owner:password').toString('base64')}`,
      `Bearer ${unknownKey()}`,
      `Bearer ${revokedKey}`,
      `Bearer ${ADMIN_TOKEN}`,
    ];
    for (const header of headers) {
      const res = await call(op, params, { kind: 'authorization', header }, invalidBody);
      expectRefused(op, res, 401, 'unauthorized');
    }
  });

  if (foreignParams(op).length > 0) {
    const foreign = FOREIGN_ANSWER[op.id] ?? { status: 404, message: /not found/, reason: 'reads as absent' };
    it(`another organization's resource: ${foreign.status} (${foreign.reason}), by key and by console session`, async () => {
      const code = foreign.status === 404 ? 'not_found' : 'forbidden';
      const byKey = await call(op, await paramsOf(other, op), bearer(home.org.ownerKey), validBody(op, home));
      expectRefused(op, byKey, foreign.status, code, foreign.message);
      // The console session names the organization by id where the path takes one (the key used the slug).
      const params = await paramsOf(other, op);
      for (const name of ORGANIZATION_PARAMS) if (params[name]) params[name] = other.org.id;
      const bySession = await call(op, params, { kind: 'session', csrf: 'valid' }, validBody(op, home));
      expectRefused(op, bySession, foreign.status, code, foreign.message);
    });
  }

  const permission = PERMISSION_OF[op.id];
  if (typeof permission === 'string') {
    it(`without ${permission}: 403; with only ${permission}: answered`, async () => {
      const others = PERMISSIONS.filter((p) => p !== permission);
      const without = await createKey(server, home.org, home.org.ownerId, {
        type: 'organization',
        permissions: others,
      });
      const refused = await call(op, await paramsOf(home, op), bearer(without.key), validBody(op, home));
      expectRefused(op, refused, 403, 'forbidden', new RegExp(`permission ${permission}`));
      // The same request by a key holding just that permission gets through: the 403 was the permission.
      const only = await createKey(server, home.org, home.org.ownerId, {
        type: 'organization',
        permissions: [permission],
      });
      const answered = await call(op, await paramsOf(home, op), bearer(only.key), validBody(op, home));
      expect(answered.status, answered.text).toBeLessThan(400);
      expect(op.statuses).toContain(answered.status);
    });
  }

  if (typeof permission === 'string' && !isScoped(permission)) {
    it(`${permission} is organization-wide: project, environment and agent grants get 403`, async () => {
      for (const grants of narrowGrants) {
        const key = await createKey(server, home.org, home.org.ownerId, grants);
        const res = await call(op, await paramsOf(home, op), bearer(key.key), validBody(op, home));
        expectRefused(op, res, 403, 'forbidden', new RegExp(`permission ${permission}`));
      }
    });
  }

  if (STATE_CHANGING.has(op.method) && op.schemes.includes('consoleSession')) {
    it('a console session without its CSRF token, or with a wrong one: 403 before validation', async () => {
      const params = await paramsOf(home, op);
      for (const csrf of ['missing', 'wrong'] as const) {
        const res = await call(op, params, { kind: 'session', csrf }, invalidBody);
        expectRefused(op, res, 403, 'csrf_token_invalid', /CSRF token/);
      }
    });
  }
});

describe.each(cases(adminOperations))('%s', (_title, op) => {
  const invalidBody = op.hasBody ? {} : undefined;

  it('no credential: 401 with WWW-Authenticate, before validation', async () => {
    const res = await call(op, await paramsOf(home, op), { kind: 'none' }, invalidBody);
    expectRefused(op, res, 401, 'unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it(`a malformed or wrong token, an API key or a console session: 401 (${ADMIN_ONLY_401})`, async () => {
    const params = await paramsOf(home, op);
    const headers = ['Bearer nonsense', 'Bearer', `Basic ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN}x`];
    for (const header of [...headers, `Bearer ${home.org.ownerKey}`]) {
      const res = await call(op, params, { kind: 'authorization', header }, invalidBody);
      expectRefused(op, res, 401, 'unauthorized');
    }
    const res = await call(op, params, { kind: 'session', csrf: 'valid' }, invalidBody);
    expectRefused(op, res, 401, 'unauthorized');
  });
});

describe('after every check', () => {
  it("the other organization's keys, connection and Experts are untouched", async () => {
    const { apiKeyIds, expertKeys } = other.made;
    expect(apiKeyIds.length).toBeGreaterThan(0);
    expect(expertKeys.length).toBeGreaterThan(0);
    for (const id of apiKeyIds) {
      const key = await server.request<ApiKeyAnswer>('GET', `/api/v1/api-keys/${id}`, {
        key: other.org.ownerKey,
      });
      expect(key.body.data.revokedAt).toBeNull();
    }
    for (const expertKey of expertKeys) {
      const expert = await server.request<ExpertAnswer>(
        'GET',
        `/registry/experts/${encodeURIComponent(expertKey)}`,
      );
      expect(expert.body.data.expert.status).toBe('available');
    }
    const connections = await server.request<ConnectionsAnswer>(
      'GET',
      `/api/v1/projects/${other.projectId}/environments/${other.environmentId}/connections`,
      { key: other.org.ownerKey },
    );
    expect(connections.body.data.connections.map((c) => c.id)).toEqual([other.connectionId]);
  });
});
