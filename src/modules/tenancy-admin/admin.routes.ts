import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import { type App, adminSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { type ApiKeysService, createApiKeyBody, createdApiKeySchema } from '../api-keys/index.js';
import {
  addMemberBody,
  agentSchema,
  createAgentBody,
  createEnvironmentBody,
  createOrganizationBody,
  createProjectBody,
  environmentSchema,
  membershipSchema,
  organizationSchema,
  presentAgent,
  presentEnvironment,
  presentMembership,
  presentOrganization,
  presentProject,
  presentUser,
  projectSchema,
  setPasswordBody,
  type TenancyService,
  userSchema,
} from '../tenancy/index.js';

const tags = ['Admin'];
const config = { auth: 'admin' as const };
const orgParams = z.object({
  org: z.string().min(1).max(64).meta({ description: 'Organization id or slug' }),
});
const projectParams = z.object({ projectId: z.string().min(1).max(64) });
const auditEventSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  action: z.string(),
  actorKind: z.enum(['apiKey', 'session', 'admin', 'system', 'scim']),
  actorUserId: z.string().nullable(),
  actorApiKeyId: z.string().nullable(),
  actorSessionId: z.string().nullable(),
  targetType: z.string(),
  targetId: z.string(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
});

export interface AdminRouteDeps {
  tenancy: Pick<
    TenancyService,
    | 'createOrganization'
    | 'addMember'
    | 'getOrganization'
    | 'getMembership'
    | 'setRole'
    | 'transferOwnership'
    | 'createProject'
    | 'createEnvironment'
    | 'createAgent'
  >;
  apiKeys: Pick<ApiKeysService, 'insertKey' | 'createForUser' | 'listAuditEvents'>;
  /** Sets a password and ends the user's console sessions (the sessions service). */
  resetPassword: (userId: string, password: string) => Promise<void>;
}

/** Operator endpoints (docs/admin-api.md): only registered when an admin token is configured. */
export function registerAdminRoutes(app: App, { tenancy, apiKeys, resetPassword }: AdminRouteDeps): void {
  app.post('/v1/organizations', {
    config,
    schema: {
      operationId: 'adminCreateOrganization',
      summary: 'Create an organization with its owner and an owner API key',
      tags,
      security: adminSecurity,
      body: createOrganizationBody,
      response: {
        201: dataOf(
          z.object({ organization: organizationSchema, owner: userSchema, apiKey: createdApiKeySchema }),
        ),
        ...managementErrors(401, 409, 422),
      },
    },
    handler: async (request, reply) => {
      const created = await tenancy.createOrganization(request.body, (tx, { organization, owner }) =>
        apiKeys.insertKey(
          tx,
          { kind: 'admin' },
          { organizationId: organization.id, userId: owner.id },
          { name: 'owner', grants: { type: 'organization', permissions: ['*'] } },
        ),
      );
      return reply.code(201).send({
        data: {
          organization: presentOrganization(created.organization),
          owner: presentUser(created.owner),
          apiKey: created.extra,
        },
      });
    },
  });

  app.post('/v1/organizations/:org/members', {
    config,
    schema: {
      operationId: 'adminAddMember',
      summary: 'Add a member (creating the user if the email is new)',
      tags,
      security: adminSecurity,
      params: orgParams,
      body: addMemberBody,
      response: {
        201: dataOf(z.object({ user: userSchema, membership: membershipSchema })),
        ...managementErrors(401, 404, 409, 422),
      },
    },
    handler: async (request, reply) => {
      const { user, membership } = await tenancy.addMember(request.params.org, request.body);
      return reply
        .code(201)
        .send({ data: { user: presentUser(user), membership: presentMembership(membership) } });
    },
  });

  app.put('/v1/organizations/:org/members/:userId', {
    config,
    schema: {
      operationId: 'adminSetMemberRole',
      summary: "Change a member's role; its API keys follow at once",
      tags,
      security: adminSecurity,
      params: orgParams.extend({ userId: z.string().min(1).max(64) }),
      body: z.object({ role: z.enum(['admin', 'member']) }).strict(),
      response: { 200: dataOf(membershipSchema), ...managementErrors(401, 404, 409, 422) },
    },
    handler: async (request) => {
      const organization = await tenancy.getOrganization(request.params.org);
      await tenancy.setRole(organization.id, request.params.userId, request.body.role, { kind: 'admin' });
      const membership = await tenancy.getMembership(organization.id, request.params.userId);
      return { data: presentMembership(membership!) };
    },
  });

  app.post('/v1/organizations/:org/ownership-transfer', {
    config,
    schema: {
      operationId: 'adminTransferOwnership',
      summary: 'Make a member the owner; the previous owner becomes an admin (atomic, audited)',
      tags,
      security: adminSecurity,
      params: orgParams,
      body: z.object({ userId: z.string().min(1).max(64) }).strict(),
      response: {
        200: dataOf(z.object({ owner: membershipSchema, previousOwner: membershipSchema })),
        ...managementErrors(401, 404, 422),
      },
    },
    handler: async (request) => {
      const organization = await tenancy.getOrganization(request.params.org);
      const { owner, previousOwner } = await tenancy.transferOwnership(organization.id, request.body.userId, {
        kind: 'admin',
      });
      return { data: { owner: presentMembership(owner), previousOwner: presentMembership(previousOwner) } };
    },
  });

  app.post('/v1/organizations/:org/users/:userId/api-keys', {
    config,
    schema: {
      operationId: 'adminCreateApiKey',
      summary: 'Create an API key for a member',
      tags,
      security: adminSecurity,
      params: orgParams.extend({ userId: z.string().min(1).max(64) }),
      body: createApiKeyBody,
      response: { 201: dataOf(createdApiKeySchema), ...managementErrors(401, 404, 422) },
    },
    handler: async (request, reply) => {
      const organization = await tenancy.getOrganization(request.params.org);
      const membership = await tenancy.getMembership(organization.id, request.params.userId);
      if (!membership) throw notAMember(request.params.userId);
      const key = await apiKeys.createForUser(
        { kind: 'admin' },
        { organizationId: organization.id, userId: membership.userId },
        request.body,
      );
      return reply.code(201).send({ data: key });
    },
  });

  app.get('/v1/organizations/:org/audit-events', {
    config,
    schema: {
      operationId: 'adminListAuditEvents',
      summary: 'Audit events of an organization, newest first',
      tags,
      security: adminSecurity,
      params: orgParams,
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }).strict(),
      response: {
        200: dataOf(z.object({ events: z.array(auditEventSchema) })),
        ...managementErrors(401, 404, 422),
      },
    },
    handler: async (request) => {
      const organization = await tenancy.getOrganization(request.params.org);
      return { data: { events: await apiKeys.listAuditEvents(organization.id, request.query.limit) } };
    },
  });

  app.post('/v1/organizations/:org/projects', {
    config,
    schema: {
      operationId: 'adminCreateProject',
      summary: 'Create a project with its production and development environments',
      tags,
      security: adminSecurity,
      params: orgParams,
      body: createProjectBody,
      response: {
        201: dataOf(z.object({ project: projectSchema, environments: z.array(environmentSchema) })),
        ...managementErrors(401, 404, 409, 422),
      },
    },
    handler: async (request, reply) => {
      const created = await tenancy.createProject(request.params.org, request.body);
      return reply.code(201).send({
        data: {
          project: presentProject(created.project),
          environments: created.environments.map(presentEnvironment),
        },
      });
    },
  });

  app.post('/v1/projects/:projectId/environments', {
    config,
    schema: {
      operationId: 'adminCreateEnvironment',
      summary: 'Add an environment to a project',
      tags,
      security: adminSecurity,
      params: projectParams,
      body: createEnvironmentBody,
      response: {
        201: dataOf(z.object({ environment: environmentSchema })),
        ...managementErrors(401, 404, 409, 422),
      },
    },
    handler: async (request, reply) => {
      const environment = await tenancy.createEnvironment(request.params.projectId, request.body.name);
      return reply.code(201).send({ data: { environment: presentEnvironment(environment) } });
    },
  });

  app.post('/v1/projects/:projectId/agents', {
    config,
    schema: {
      operationId: 'adminCreateAgent',
      summary: 'Add an agent to a project',
      tags,
      security: adminSecurity,
      params: projectParams,
      body: createAgentBody,
      response: { 201: dataOf(z.object({ agent: agentSchema })), ...managementErrors(401, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const agent = await tenancy.createAgent(request.params.projectId, request.body.name);
      return reply.code(201).send({ data: { agent: presentAgent(agent) } });
    },
  });

  app.put('/v1/users/:userId/password', {
    config,
    schema: {
      operationId: 'adminSetPassword',
      summary: "Set a user's console password (at least 12 characters)",
      tags,
      security: adminSecurity,
      params: z.object({ userId: z.string().min(1).max(64) }),
      body: setPasswordBody,
      response: { 200: dataOf(z.object({})), ...managementErrors(401, 404, 422) },
    },
    handler: async (request) => {
      await resetPassword(request.params.userId, request.body.password);
      return { data: {} };
    },
  });
}

const notAMember = (userId: string) =>
  new ApiError('not_found', `User ${userId} is not a member of this organization`);
