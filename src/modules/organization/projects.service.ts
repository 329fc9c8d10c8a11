import { asc, eq, inArray } from 'drizzle-orm';
import type { ChangeBus } from '../../db/change-bus.js';
import type { Database, Tx } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ApiError } from '../../http/errors.js';
import type { ForeignResourceGuard } from '../../http/rate-limit/rate-limit.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { ApiKeyAuthenticator } from '../api-keys/index.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import type { DisconnectRow } from '../connections/index.js';
import { connections, presetName } from '../oauth/index.js';
import { agents, environments, projects } from '../tenancy/index.js';
import { blockersSummary, createDeletionBlockers, hasBlockers } from './deletion-blockers.js';
import type { ProjectRecord } from './organization.schemas.js';
import { createProjectAccess } from './project-access.js';

const DEFAULT_ENVIRONMENTS = ['production', 'development'] as const;

export interface ProjectsServiceDeps {
  database: Database;
  bus: ChangeBus;
  clock: Clock;
  foreignResources: ForeignResourceGuard;
  /** Drops a revoked key from this instance's cache at once (the bus tells the others). */
  authenticator: Pick<ApiKeyAuthenticator, 'forget'>;
  /** Revokes a connection's tokens at the provider and deletes it, as `DELETE …/connections/{id}` does. */
  disconnectRow: DisconnectRow;
}

export type ProjectsService = ReturnType<typeof createProjectsService>;

type ProjectRow = typeof projects.$inferSelect;
type EnvironmentRow = typeof environments.$inferSelect;
type AgentRow = typeof agents.$inferSelect;

const timestamp = (at: Date) => at.toISOString();
const presentEnvironment = (e: EnvironmentRow) => ({
  id: e.id,
  projectId: e.projectId,
  name: e.name,
  createdAt: timestamp(e.createdAt),
});
const presentAgent = (a: AgentRow) => ({
  id: a.id,
  projectId: a.projectId,
  name: a.name,
  createdAt: timestamp(a.createdAt),
});

/**
 * Members creating, renaming and deleting their organization's projects, environments and agents
 * (docs/organization-api.md, "Projects, environments and agents"). `projects:write` on the organization
 * creates projects; on a project (a project grant reaches it) it manages that project, its environments and
 * agents; on an environment (an environment grant) it renames or deletes that environment. A resource the
 * credential's grant does not reach reads as absent (404), one it reaches without `projects:write` is 403.
 * Deleting what connections or API-key grants depend on is 409 naming them, unless `cascade` disconnects
 * the connections and revokes the keys in the same transaction (each audited).
 */
export function createProjectsService(deps: ProjectsServiceDeps) {
  const { database, bus, clock } = deps;
  const { db } = database;
  const { reachProject, reachEnvironment, reachAgent } = createProjectAccess(deps);
  const { blockersOf, removeBlockers, refuse } = createDeletionBlockers({
    clock,
    connections: {
      lockedIn: (tx, environmentIds) =>
        tx
          .select()
          .from(connections)
          .where(inArray(connections.environmentId, environmentIds))
          .orderBy(asc(connections.createdAt), asc(connections.id))
          .for('update'),
      label: (c) => `${presetName(c.presetKey)} ${c.accountLabel ?? c.accountId}`,
      disconnect: deps.disconnectRow,
    },
  });

  async function conflictOnDuplicate<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError('conflict', `${what} already exists`);
      throw error;
    }
  }

  async function presentProject(executor: Database['db'] | Tx, project: ProjectRow): Promise<ProjectRecord> {
    const [environmentRows, agentRows] = await Promise.all([
      executor
        .select()
        .from(environments)
        .where(eq(environments.projectId, project.id))
        .orderBy(asc(environments.createdAt), asc(environments.id)),
      executor
        .select()
        .from(agents)
        .where(eq(agents.projectId, project.id))
        .orderBy(asc(agents.createdAt), asc(agents.id)),
    ]);
    return {
      id: project.id,
      slug: project.slug,
      name: project.name,
      createdAt: timestamp(project.createdAt),
      environments: environmentRows.map((e) => ({
        id: e.id,
        name: e.name,
        createdAt: timestamp(e.createdAt),
      })),
      agents: agentRows.map((a) => ({ id: a.id, name: a.name, createdAt: timestamp(a.createdAt) })),
    };
  }

  const evict = (change: { topic: string; id: string }) => deps.authenticator.forget(change.id);

  return {
    async createProject(principal: Principal, input: { slug: string; name: string }) {
      requirePermission(principal, 'projects:write');
      const organizationId = principal.organizationId;
      return conflictOnDuplicate(`Project ${input.slug}`, () =>
        db.transaction(async (tx) => {
          const [project] = await tx
            .insert(projects)
            .values({ id: newId(), organizationId, slug: input.slug, name: input.name })
            .returning();
          await tx.insert(environments).values(
            DEFAULT_ENVIRONMENTS.map((name) => ({
              id: newId(),
              organizationId,
              projectId: project!.id,
              name,
            })),
          );
          await recordAuditEvent(tx, {
            organizationId,
            action: 'project.created',
            actor: principal,
            target: { type: 'project', id: project!.id },
            at: clock.now(),
            metadata: { slug: input.slug, name: input.name },
          });
          return presentProject(tx, project!);
        }),
      );
    },

    async updateProject(principal: Principal, projectId: string, input: { slug?: string; name?: string }) {
      const project = await reachProject(principal, projectId);
      return conflictOnDuplicate(`Project ${input.slug ?? project.slug}`, () =>
        db.transaction(async (tx) => {
          const [updated] = await tx
            .update(projects)
            .set({ ...(input.slug ? { slug: input.slug } : {}), ...(input.name ? { name: input.name } : {}) })
            .where(eq(projects.id, project.id))
            .returning();
          await recordAuditEvent(tx, {
            organizationId: project.organizationId,
            action: 'project.renamed',
            actor: principal,
            target: { type: 'project', id: project.id },
            at: clock.now(),
            metadata: {
              from: { slug: project.slug, name: project.name },
              to: { slug: updated!.slug, name: updated!.name },
            },
          });
          return presentProject(tx, updated!);
        }),
      );
    },

    async deleteProject(principal: Principal, projectId: string, cascade: boolean) {
      const project = await reachProject(principal, projectId);
      await bus.commit(async (tx, publish) => {
        const [locked] = await tx.select().from(projects).where(eq(projects.id, project.id)).for('update');
        if (!locked) return;
        const environmentRows = await tx
          .select()
          .from(environments)
          .where(eq(environments.projectId, project.id))
          .for('update');
        const agentRows = await tx.select().from(agents).where(eq(agents.projectId, project.id));
        const blockers = await blockersOf(tx, project.organizationId, {
          projectIds: [project.id],
          environmentIds: environmentRows.map((e) => e.id),
          agentIds: agentRows.map((a) => a.id),
        });
        if (hasBlockers(blockers) && !cascade) {
          refuse(`Project “${project.name}”`, blockers, new Map(environmentRows.map((e) => [e.id, e.name])));
        }
        const cause = { type: 'project', id: project.id };
        await removeBlockers(tx, publish, principal, project.organizationId, blockers, cause);
        await tx.delete(agents).where(eq(agents.projectId, project.id));
        await tx.delete(environments).where(eq(environments.projectId, project.id));
        await tx.delete(projects).where(eq(projects.id, project.id));
        await recordAuditEvent(tx, {
          organizationId: project.organizationId,
          action: 'project.deleted',
          actor: principal,
          target: { type: 'project', id: project.id },
          at: clock.now(),
          metadata: { slug: project.slug, name: project.name, cascade: blockersSummary(blockers) },
        });
      }, evict);
    },

    async createEnvironment(principal: Principal, projectId: string, name: string) {
      const project = await reachProject(principal, projectId);
      return conflictOnDuplicate(`Environment ${name}`, () =>
        db.transaction(async (tx) => {
          const [environment] = await tx
            .insert(environments)
            .values({ id: newId(), organizationId: project.organizationId, projectId: project.id, name })
            .returning();
          await recordAuditEvent(tx, {
            organizationId: project.organizationId,
            action: 'environment.created',
            actor: principal,
            target: { type: 'environment', id: environment!.id },
            at: clock.now(),
            metadata: { projectId: project.id, name },
          });
          return presentEnvironment(environment!);
        }),
      );
    },

    async renameEnvironment(principal: Principal, projectId: string, environmentId: string, name: string) {
      const environment = await reachEnvironment(principal, projectId, environmentId);
      return conflictOnDuplicate(`Environment ${name}`, () =>
        db.transaction(async (tx) => {
          const [updated] = await tx
            .update(environments)
            .set({ name })
            .where(eq(environments.id, environment.id))
            .returning();
          await recordAuditEvent(tx, {
            organizationId: environment.organizationId,
            action: 'environment.renamed',
            actor: principal,
            target: { type: 'environment', id: environment.id },
            at: clock.now(),
            metadata: { projectId: environment.projectId, from: environment.name, to: name },
          });
          return presentEnvironment(updated!);
        }),
      );
    },

    async deleteEnvironment(
      principal: Principal,
      projectId: string,
      environmentId: string,
      cascade: boolean,
    ) {
      const environment = await reachEnvironment(principal, projectId, environmentId);
      await bus.commit(async (tx, publish) => {
        const [locked] = await tx
          .select()
          .from(environments)
          .where(eq(environments.id, environment.id))
          .for('update');
        if (!locked) return;
        const blockers = await blockersOf(tx, environment.organizationId, {
          projectIds: [],
          environmentIds: [environment.id],
          agentIds: [],
        });
        if (hasBlockers(blockers) && !cascade) {
          refuse(
            `Environment “${environment.name}”`,
            blockers,
            new Map([[environment.id, environment.name]]),
          );
        }
        const cause = { type: 'environment', id: environment.id };
        await removeBlockers(tx, publish, principal, environment.organizationId, blockers, cause);
        await tx.delete(environments).where(eq(environments.id, environment.id));
        await recordAuditEvent(tx, {
          organizationId: environment.organizationId,
          action: 'environment.deleted',
          actor: principal,
          target: { type: 'environment', id: environment.id },
          at: clock.now(),
          metadata: {
            projectId: environment.projectId,
            name: environment.name,
            cascade: blockersSummary(blockers),
          },
        });
      }, evict);
    },

    async createAgent(principal: Principal, projectId: string, name: string) {
      const project = await reachProject(principal, projectId);
      return conflictOnDuplicate(`Agent ${name}`, () =>
        db.transaction(async (tx) => {
          const [agent] = await tx
            .insert(agents)
            .values({ id: newId(), organizationId: project.organizationId, projectId: project.id, name })
            .returning();
          await recordAuditEvent(tx, {
            organizationId: project.organizationId,
            action: 'agent.created',
            actor: principal,
            target: { type: 'agent', id: agent!.id },
            at: clock.now(),
            metadata: { projectId: project.id, name },
          });
          return presentAgent(agent!);
        }),
      );
    },

    async renameAgent(principal: Principal, projectId: string, agentId: string, name: string) {
      const agent = await reachAgent(principal, projectId, agentId);
      return conflictOnDuplicate(`Agent ${name}`, () =>
        db.transaction(async (tx) => {
          const [updated] = await tx.update(agents).set({ name }).where(eq(agents.id, agent.id)).returning();
          await recordAuditEvent(tx, {
            organizationId: agent.organizationId,
            action: 'agent.renamed',
            actor: principal,
            target: { type: 'agent', id: agent.id },
            at: clock.now(),
            metadata: { projectId: agent.projectId, from: agent.name, to: name },
          });
          return presentAgent(updated!);
        }),
      );
    },

    async deleteAgent(principal: Principal, projectId: string, agentId: string, cascade: boolean) {
      const agent = await reachAgent(principal, projectId, agentId);
      await bus.commit(async (tx, publish) => {
        const [locked] = await tx.select().from(agents).where(eq(agents.id, agent.id)).for('update');
        if (!locked) return;
        const blockers = await blockersOf(tx, agent.organizationId, {
          projectIds: [],
          environmentIds: [],
          agentIds: [agent.id],
        });
        if (hasBlockers(blockers) && !cascade) refuse(`Agent “${agent.name}”`, blockers, new Map());
        const cause = { type: 'agent', id: agent.id };
        await removeBlockers(tx, publish, principal, agent.organizationId, blockers, cause);
        await tx.delete(agents).where(eq(agents.id, agent.id));
        await recordAuditEvent(tx, {
          organizationId: agent.organizationId,
          action: 'agent.deleted',
          actor: principal,
          target: { type: 'agent', id: agent.id },
          at: clock.now(),
          metadata: { projectId: agent.projectId, name: agent.name, cascade: blockersSummary(blockers) },
        });
      }, evict);
    },
  };
}
