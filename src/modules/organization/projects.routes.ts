import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { projectSchema } from './organization.schemas.js';
import {
  agentBody,
  agentParams,
  cascadeQuery,
  createProjectBody,
  environmentBody,
  environmentParams,
  projectAgentSchema,
  projectEnvironmentSchema,
  projectParams,
  updateProjectBody,
} from './projects.schemas.js';
import type { ProjectsService } from './projects.service.js';

const tags = ['Organization'];
const config = { auth: 'principal' } as const;
const deleted = z.null().meta({ description: 'Deleted: no body' });
const blockedDelete =
  'Without cascade=true, a delete that connections or live API-key grants depend on answers 409 naming ' +
  'each of them in `details` (`connections.<id>`, `apiKeys.<id>`, the message naming it). With ' +
  'cascade=true they are disconnected (tokens revoked at the provider) and revoked first, each audited.';

/** Projects, environments and agents managed by members with projects:write (docs/organization-api.md). */
export function registerProjectRoutes(app: App, projects: ProjectsService): void {
  app.post('/v1/projects', {
    config,
    schema: {
      operationId: 'createProject',
      summary: 'Create a project with its production and development environments (projects:write)',
      tags,
      security: bearerSecurity,
      body: createProjectBody,
      response: { 201: dataOf(projectSchema), ...managementErrors(401, 403, 409, 422) },
    },
    handler: async (request, reply) =>
      reply.code(201).send({ data: await projects.createProject(requirePrincipal(request), request.body) }),
  });

  app.patch('/v1/projects/:projectId', {
    config,
    schema: {
      operationId: 'updateProject',
      summary: 'Rename a project (its name, its slug or both; projects:write on the project)',
      tags,
      security: bearerSecurity,
      params: projectParams,
      body: updateProjectBody,
      response: { 200: dataOf(projectSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => ({
      data: await projects.updateProject(requirePrincipal(request), request.params.projectId, request.body),
    }),
  });

  app.delete('/v1/projects/:projectId', {
    config,
    schema: {
      operationId: 'deleteProject',
      summary: 'Delete a project with its environments and agents (projects:write on the project)',
      description: blockedDelete,
      tags,
      security: bearerSecurity,
      params: projectParams,
      querystring: cascadeQuery,
      response: { 204: deleted, ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      await projects.deleteProject(
        requirePrincipal(request),
        request.params.projectId,
        request.query.cascade === 'true',
      );
      return reply.code(204).send(null);
    },
  });

  app.post('/v1/projects/:projectId/environments', {
    config,
    schema: {
      operationId: 'createEnvironment',
      summary: 'Add an environment to a project (projects:write on the project)',
      tags,
      security: bearerSecurity,
      params: projectParams,
      body: environmentBody,
      response: { 201: dataOf(projectEnvironmentSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) =>
      reply.code(201).send({
        data: await projects.createEnvironment(
          requirePrincipal(request),
          request.params.projectId,
          request.body.name,
        ),
      }),
  });

  app.patch('/v1/projects/:projectId/environments/:environmentId', {
    config,
    schema: {
      operationId: 'renameEnvironment',
      summary: 'Rename an environment (projects:write on it)',
      tags,
      security: bearerSecurity,
      params: environmentParams,
      body: environmentBody,
      response: { 200: dataOf(projectEnvironmentSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => ({
      data: await projects.renameEnvironment(
        requirePrincipal(request),
        request.params.projectId,
        request.params.environmentId,
        request.body.name,
      ),
    }),
  });

  app.delete('/v1/projects/:projectId/environments/:environmentId', {
    config,
    schema: {
      operationId: 'deleteEnvironment',
      summary: 'Delete an environment (projects:write on it)',
      description: blockedDelete,
      tags,
      security: bearerSecurity,
      params: environmentParams,
      querystring: cascadeQuery,
      response: { 204: deleted, ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      await projects.deleteEnvironment(
        requirePrincipal(request),
        request.params.projectId,
        request.params.environmentId,
        request.query.cascade === 'true',
      );
      return reply.code(204).send(null);
    },
  });

  app.post('/v1/projects/:projectId/agents', {
    config,
    schema: {
      operationId: 'createAgent',
      summary: 'Add an agent to a project (projects:write on the project)',
      tags,
      security: bearerSecurity,
      params: projectParams,
      body: agentBody,
      response: { 201: dataOf(projectAgentSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) =>
      reply.code(201).send({
        data: await projects.createAgent(
          requirePrincipal(request),
          request.params.projectId,
          request.body.name,
        ),
      }),
  });

  app.patch('/v1/projects/:projectId/agents/:agentId', {
    config,
    schema: {
      operationId: 'renameAgent',
      summary: 'Rename an agent (projects:write on its project)',
      tags,
      security: bearerSecurity,
      params: agentParams,
      body: agentBody,
      response: { 200: dataOf(projectAgentSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => ({
      data: await projects.renameAgent(
        requirePrincipal(request),
        request.params.projectId,
        request.params.agentId,
        request.body.name,
      ),
    }),
  });

  app.delete('/v1/projects/:projectId/agents/:agentId', {
    config,
    schema: {
      operationId: 'deleteAgent',
      summary: 'Delete an agent (projects:write on its project)',
      description: blockedDelete.replace('connections or live', 'live'),
      tags,
      security: bearerSecurity,
      params: agentParams,
      querystring: cascadeQuery,
      response: { 204: deleted, ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      await projects.deleteAgent(
        requirePrincipal(request),
        request.params.projectId,
        request.params.agentId,
        request.query.cascade === 'true',
      );
      return reply.code(204).send(null);
    },
  });
}
