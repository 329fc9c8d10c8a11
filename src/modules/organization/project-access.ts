import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { forbidden, notFound } from '../../http/errors.js';
import { type ForeignResourceGuard, rejectForeignResource } from '../../http/rate-limit/rate-limit.js';
import { can, grantReaches, type Permission, type Principal, type Scope } from '../auth/index.js';
import { agents, findEnvironment, projects } from '../tenancy/index.js';

export interface ProjectAccessDeps {
  database: Database;
  foreignResources: ForeignResourceGuard;
}

/** 404 outside the grant's reach (and for another organization's ids), 403 without the permission. */
function authorize(principal: Principal, scope: Scope, permission: Permission, what: string) {
  if (!grantReaches(principal, scope)) throw notFound(what);
  if (!can(principal, permission, scope)) throw forbidden(`Missing permission ${permission}`);
}

/**
 * The project, environment or agent a write names, within the caller's organization and its grant: one the
 * grant does not reach (or another organization's) reads as absent (404), one it reaches without
 * `projects:write` is 403.
 */
export function createProjectAccess({ database, foreignResources }: ProjectAccessDeps) {
  const { db } = database;

  async function reachProject(
    principal: Principal,
    projectId: string,
  ): Promise<typeof projects.$inferSelect> {
    const [project] = await db
      .select()
      .from(projects)
      .where(and(eq(projects.id, projectId), eq(projects.organizationId, principal.organizationId)));
    if (!project) {
      return rejectForeignResource(foreignResources, principal, notFound(`Project ${projectId}`));
    }
    const scope: Scope = { kind: 'project', organizationId: project.organizationId, projectId: project.id };
    authorize(principal, scope, 'projects:write', `Project ${projectId}`);
    return project;
  }

  async function reachEnvironment(principal: Principal, projectId: string, environmentId: string) {
    const environment = await findEnvironment(db, principal.organizationId, projectId, environmentId);
    const what = `Environment ${environmentId} of project ${projectId}`;
    if (!environment) return rejectForeignResource(foreignResources, principal, notFound(what));
    const scope: Scope = {
      kind: 'environment',
      organizationId: environment.organizationId,
      projectId: environment.projectId,
      environmentId: environment.id,
    };
    authorize(principal, scope, 'projects:write', what);
    return environment;
  }

  async function reachAgent(principal: Principal, projectId: string, agentId: string) {
    const [agent] = await db
      .select()
      .from(agents)
      .where(
        and(
          eq(agents.id, agentId),
          eq(agents.projectId, projectId),
          eq(agents.organizationId, principal.organizationId),
        ),
      );
    const what = `Agent ${agentId} of project ${projectId}`;
    if (!agent) return rejectForeignResource(foreignResources, principal, notFound(what));
    const scope: Scope = {
      kind: 'agent',
      organizationId: agent.organizationId,
      projectId: agent.projectId,
      agentId: agent.id,
    };
    authorize(principal, scope, 'projects:write', what);
    return agent;
  }

  return { reachProject, reachEnvironment, reachAgent };
}
