import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { integrationSchema } from '../integrations/index.js';
import {
  memberListSchema,
  meSchema,
  orgParams,
  pageQuery,
  projectListSchema,
  projectSchema,
} from './organization.schemas.js';
import type { OrganizationService } from './organization.service.js';

const tags = ['Organization'];
const config = { auth: 'principal' } as const;

export function registerOrganizationRoutes(app: App, organization: OrganizationService): void {
  app.get('/v1/me', {
    config,
    schema: {
      operationId: 'getMe',
      summary: 'The caller: user, organization, role, what this credential may do, and how it authenticated',
      tags,
      security: bearerSecurity,
      response: { 200: dataOf(meSchema), ...managementErrors(401) },
    },
    handler: async (request) => ({ data: await organization.me(requirePrincipal(request)) }),
  });

  app.get('/v1/organizations/:org/members', {
    config,
    schema: {
      operationId: 'listMembers',
      summary: "The organization's members and roles (emails: owners and admins only)",
      tags,
      security: bearerSecurity,
      params: orgParams,
      querystring: pageQuery,
      response: { 200: memberListSchema, ...managementErrors(401, 403, 404, 422) },
    },
    handler: (request) => organization.members(requirePrincipal(request), request.params.org, request.query),
  });

  app.get('/v1/projects', {
    config,
    schema: {
      operationId: 'listProjects',
      summary: "The organization's projects with their environments and agents, as far as the grant reaches",
      tags,
      security: bearerSecurity,
      querystring: pageQuery,
      response: { 200: projectListSchema, ...managementErrors(401, 403, 422) },
    },
    handler: (request) => organization.projects(requirePrincipal(request), request.query),
  });

  app.get('/v1/projects/:projectId', {
    config,
    schema: {
      operationId: 'getProject',
      summary: 'One project with its environments and agents',
      tags,
      security: bearerSecurity,
      params: z.object({ projectId: z.string().min(1).max(64) }),
      response: { 200: dataOf(projectSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: (request) => organization.project(requirePrincipal(request), request.params.projectId),
  });

  app.get('/v1/organizations/:org/integrations', {
    config,
    schema: {
      operationId: 'listIntegrations',
      summary: "The organization's OAuth integrations, what the console offers to connect (never a secret)",
      tags,
      security: bearerSecurity,
      params: orgParams,
      response: {
        200: z.object({ data: z.array(integrationSchema) }),
        ...managementErrors(401, 403, 404, 422),
      },
    },
    handler: (request) => organization.integrations(requirePrincipal(request), request.params.org),
  });
}
