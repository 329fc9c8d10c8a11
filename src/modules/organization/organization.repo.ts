import { and, asc, eq, gt, inArray, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.js';
import type { KeysetPosition } from '../../lib/keyset-cursor.js';
import { apiKeys } from '../api-keys/api-keys.tables.js';
import { agents, environments, memberships, projects, users } from '../tenancy/tenancy.tables.js';

/** A row's time in whole microseconds since the epoch, as text: the cursor's precision (keyset-cursor.ts). */
const micros = (at: AnyPgColumn) => sql<string>`((extract(epoch from ${at}) * 1000000)::bigint)::text`;
const microsOf = (at: AnyPgColumn) => sql`(extract(epoch from ${at}) * 1000000)::bigint`;

/** Rows after `position` in (created_at, id) order: the keyset every list of this module pages by. */
const after = (at: AnyPgColumn, id: AnyPgColumn, position?: KeysetPosition) =>
  position
    ? or(
        sql`${microsOf(at)} > ${position.micros}::bigint`,
        and(sql`${microsOf(at)} = ${position.micros}::bigint`, gt(id, position.id)),
      )
    : undefined;

export async function memberPage(
  executor: Executor,
  organizationId: string,
  limit: number,
  position?: KeysetPosition,
) {
  return executor
    .select({
      userId: memberships.userId,
      role: memberships.role,
      createdAt: memberships.createdAt,
      micros: micros(memberships.createdAt),
      name: users.name,
      email: users.email,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.organizationId, organizationId),
        after(memberships.createdAt, memberships.userId, position),
      ),
    )
    .orderBy(asc(memberships.createdAt), asc(memberships.userId))
    .limit(limit);
}

export async function projectPage(
  executor: Executor,
  organizationId: string,
  limit: number,
  position?: KeysetPosition,
  only?: string[],
) {
  return executor
    .select({
      id: projects.id,
      organizationId: projects.organizationId,
      slug: projects.slug,
      name: projects.name,
      createdAt: projects.createdAt,
      micros: micros(projects.createdAt),
    })
    .from(projects)
    .where(
      and(
        eq(projects.organizationId, organizationId),
        only ? inArray(projects.id, only) : undefined,
        after(projects.createdAt, projects.id, position),
      ),
    )
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .limit(limit);
}

export async function findProject(executor: Executor, organizationId: string, projectId: string) {
  const [row] = await executor
    .select()
    .from(projects)
    .where(and(eq(projects.organizationId, organizationId), eq(projects.id, projectId)));
  return row;
}

/** The environments and agents of these projects, oldest first. */
export async function projectParts(executor: Executor, projectIds: string[]) {
  if (projectIds.length === 0) return { environments: [], agents: [] };
  const [environmentRows, agentRows] = await Promise.all([
    executor
      .select()
      .from(environments)
      .where(inArray(environments.projectId, projectIds))
      .orderBy(asc(environments.createdAt), asc(environments.id)),
    executor
      .select()
      .from(agents)
      .where(inArray(agents.projectId, projectIds))
      .orderBy(asc(agents.createdAt), asc(agents.id)),
  ]);
  return { environments: environmentRows, agents: agentRows };
}

/** Projects holding any of these environments or agents (what an environment or agent grant reaches). */
export async function projectIdsOf(executor: Executor, environmentIds: string[], agentIds: string[]) {
  const [fromEnvironments, fromAgents] = await Promise.all([
    environmentIds.length
      ? executor
          .select({ projectId: environments.projectId })
          .from(environments)
          .where(inArray(environments.id, environmentIds))
      : [],
    agentIds.length
      ? executor.select({ projectId: agents.projectId }).from(agents).where(inArray(agents.id, agentIds))
      : [],
  ]);
  return [...new Set([...fromEnvironments, ...fromAgents].map((row) => row.projectId))];
}

export async function apiKeyStart(executor: Executor, apiKeyId: string) {
  const [row] = await executor.select({ start: apiKeys.start }).from(apiKeys).where(eq(apiKeys.id, apiKeyId));
  return row?.start;
}
