import { and, asc, eq, gt, inArray, max, or, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { asLimit, batchedPages } from '../../db/batched-pages.js';
import { batchedReads } from '../../db/batched-reads.js';
import type { Database, Executor } from '../../db/client.js';
import type { KeysetPosition } from '../../http/keyset-cursor.js';
import { apiKeys } from '../api-keys/index.js';
import { agents, environments, memberships, projects, users } from '../tenancy/index.js';

/** A row's time in whole microseconds since the epoch, as text: the cursor's precision (keyset-cursor.ts). */
const micros = (at: AnyPgColumn) => sql<string>`((extract(epoch from ${at}) * 1000000)::bigint)::text`;
const microsOf = (at: AnyPgColumn) => sql`(extract(epoch from ${at}) * 1000000)::bigint`;

const placeholder = sql.placeholder;
const anyOf = (column: AnyPgColumn, name: string) => sql`${column} = ANY(${placeholder(name)}::text[])`;

/** Rows after a cursor's position in (created_at, id) order: the keyset every list of this module pages by. */
const afterCursor = (at: AnyPgColumn, id: AnyPgColumn, position: { micros: SQL; id: SQL | Placeholder }) =>
  or(
    sql`${microsOf(at)} > ${position.micros}::bigint`,
    and(sql`${microsOf(at)} = ${position.micros}::bigint`, gt(id, position.id)),
  );
const cursorPlaceholders = { micros: sql`${placeholder('micros')}`, id: placeholder('afterId') };

/** What each caller of a members page gives (src/db/batched-pages.ts). */
const MEMBER_PAGE_CALLERS = {
  organization_id: 'text',
  cursor_micros: 'bigint',
  cursor_id: 'text',
  page_limit: 'int',
} as const;

/** What each caller of a projects page gives: the same as a members page. */
const PROJECT_PAGE_CALLERS = MEMBER_PAGE_CALLERS;

/** A batched page's cursor, read from its caller's row. */
const callerCursor = (caller: (column: keyof typeof MEMBER_PAGE_CALLERS) => SQL) => ({
  micros: caller('cursor_micros'),
  id: caller('cursor_id'),
});

interface ProjectPageRow {
  id: string;
  organizationId: string;
  slug: string;
  name: string;
  createdAt: Date;
  micros: string;
}

interface MemberRow {
  userId: string;
  role: 'owner' | 'admin' | 'member';
  createdAt: Date;
  micros: string;
  name: string | null;
  email: string;
}

type Page = { organizationId: string; limit: number; position?: KeysetPosition | undefined };
const pageValues = ({ organizationId, limit, position }: Page) => ({
  organizationId,
  limit,
  micros: position?.micros,
  afterId: position?.id,
});

/** A page's values as a caller of a batched members or projects page gives them. */
const keysetCallerValues = ({ organizationId, limit, position }: Page) => ({
  organization_id: organizationId,
  cursor_micros: position?.micros,
  cursor_id: position?.id,
  page_limit: limit,
});

/**
 * The reads of members' and projects' GETs, each built and named once (docs/performance.md): prepared
 * statements PostgreSQL parses and plans once per connection. A page's shapes (first page or after a
 * cursor; every project or a grant's) are statements of their own, each with a plan of its own.
 */
export function createOrganizationReads(database: Pick<Database, 'db' | 'connections'>) {
  const { db } = database;
  // The members pages of one turn (one statement per shape: first page, or after a cursor).
  const memberPageOf = (after: boolean) =>
    batchedPages<typeof MEMBER_PAGE_CALLERS, MemberRow>(
      database,
      `member_pages_${after ? 'after' : 'first'}`,
      MEMBER_PAGE_CALLERS,
      (caller) => {
        const subquery = db
          .select({
            userId: memberships.userId,
            role: memberships.role,
            createdAt: memberships.createdAt,
            micros: micros(memberships.createdAt).as('micros'),
            name: users.name,
            email: users.email,
          })
          .from(memberships)
          .innerJoin(users, eq(users.id, memberships.userId))
          .where(
            and(
              eq(memberships.organizationId, caller('organization_id')),
              after
                ? afterCursor(memberships.createdAt, memberships.userId, callerCursor(caller))
                : undefined,
            ),
          )
          .orderBy(asc(memberships.createdAt), asc(memberships.userId))
          .limit(asLimit(caller('page_limit')))
          .as('page');
        const { userId, role, createdAt, micros: at, name, email } = subquery;
        return {
          subquery,
          fields: { userId, role, createdAt, micros: at, name, email },
          order: [asc(subquery.createdAt), asc(subquery.userId)],
        };
      },
    );
  const memberPages = { first: memberPageOf(false), after: memberPageOf(true) };

  const projectColumns = {
    id: projects.id,
    organizationId: projects.organizationId,
    slug: projects.slug,
    name: projects.name,
    createdAt: projects.createdAt,
  };
  // Every project of the organization: the pages of one turn, one statement per shape.
  const projectPageOf = (after: boolean) =>
    batchedPages<typeof PROJECT_PAGE_CALLERS, ProjectPageRow>(
      database,
      `project_pages_${after ? 'after' : 'first'}`,
      PROJECT_PAGE_CALLERS,
      (caller) => {
        const subquery = db
          .select({ ...projectColumns, micros: micros(projects.createdAt).as('micros') })
          .from(projects)
          .where(
            and(
              eq(projects.organizationId, caller('organization_id')),
              after ? afterCursor(projects.createdAt, projects.id, callerCursor(caller)) : undefined,
            ),
          )
          .orderBy(asc(projects.createdAt), asc(projects.id))
          .limit(asLimit(caller('page_limit')))
          .as('page');
        const { id, organizationId, slug, name, createdAt, micros: at } = subquery;
        return {
          subquery,
          fields: { id, organizationId, slug, name, createdAt, micros: at },
          order: [asc(subquery.createdAt), asc(subquery.id)],
        };
      },
    );
  // The projects a grant names (an array per caller, which `unnest` would flatten): a statement per request.
  const grantedPageOf = (after: boolean) =>
    db
      .select({ ...projectColumns, micros: micros(projects.createdAt) })
      .from(projects)
      .where(
        and(
          eq(projects.organizationId, placeholder('organizationId')),
          anyOf(projects.id, 'only'),
          after ? afterCursor(projects.createdAt, projects.id, cursorPlaceholders) : undefined,
        ),
      )
      .orderBy(asc(projects.createdAt), asc(projects.id))
      .limit(placeholder('limit'))
      .prepare(`project_page_granted_${after ? 'after' : 'first'}`);
  const projectPages = { first: projectPageOf(false), after: projectPageOf(true) };
  const grantedPages = { first: grantedPageOf(false), after: grantedPageOf(true) };

  const projectById = db
    .select()
    .from(projects)
    .where(
      and(eq(projects.organizationId, placeholder('organizationId')), eq(projects.id, placeholder('id'))),
    )
    .prepare('project_by_id');
  const environmentsOf = db
    .select()
    .from(environments)
    .where(anyOf(environments.projectId, 'projectIds'))
    .orderBy(asc(environments.createdAt), asc(environments.id))
    .prepare('environments_of_projects');
  const agentsOf = db
    .select()
    .from(agents)
    .where(anyOf(agents.projectId, 'projectIds'))
    .orderBy(asc(agents.createdAt), asc(agents.id))
    .prepare('agents_of_projects');
  /** The parts of the projects of every request of one turn, one statement each kind; per project, in order. */
  const partsOf = <Row extends { projectId: string }>(statement: {
    execute: (values: { projectIds: string[] }) => Promise<Row[]>;
  }) =>
    batchedReads(async (projectIds: readonly string[]) => {
      const byProject = new Map<string, Row[]>();
      for (const row of await statement.execute({ projectIds: [...new Set(projectIds)] })) {
        const list = byProject.get(row.projectId) ?? [];
        list.push(row);
        byProject.set(row.projectId, list);
      }
      return projectIds.map((id) => byProject.get(id) ?? []);
    }, database.connections);
  const environmentLoader = partsOf(environmentsOf);
  const agentLoader = partsOf(agentsOf);
  const loadAll = async <Row>(
    loader: { loadMany: (ids: string[]) => Promise<Array<Row[] | Error>> },
    ids: string[],
  ) =>
    (await loader.loadMany(ids)).flatMap((rows) => {
      if (rows instanceof Error) throw rows;
      return rows;
    });

  return {
    memberPage: (page: Page) => memberPages[page.position ? 'after' : 'first'](keysetCallerValues(page)),

    /** `only` narrows to the projects a grant names. */
    projectPage: (page: Page & { only?: string[] | undefined }) => {
      const shape = page.position ? 'after' : 'first';
      if (page.only) return grantedPages[shape].execute({ ...pageValues(page), only: page.only });
      return projectPages[shape](keysetCallerValues(page));
    },

    /** Each of these members' latest use of one of their API keys in this organization. */
    async lastKeyUses(organizationId: string, userIds: string[]): Promise<Map<string, Date>> {
      if (userIds.length === 0) return new Map();
      const rows = await db
        .select({ userId: apiKeys.userId, at: max(apiKeys.lastUsedAt) })
        .from(apiKeys)
        .where(and(eq(apiKeys.organizationId, organizationId), inArray(apiKeys.userId, userIds)))
        .groupBy(apiKeys.userId);
      return new Map(rows.flatMap((row) => (row.at ? [[row.userId, row.at] as const] : [])));
    },

    findProject: async (organizationId: string, id: string) =>
      (await projectById.execute({ organizationId, id }))[0],

    /** The environments and agents of these projects, oldest first. */
    async projectParts(projectIds: string[]) {
      if (projectIds.length === 0) return { environments: [], agents: [] };
      const [environmentRows, agentRows] = await Promise.all([
        loadAll(environmentLoader, projectIds),
        loadAll(agentLoader, projectIds),
      ]);
      return { environments: environmentRows, agents: agentRows };
    },
  };
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
