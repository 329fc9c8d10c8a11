import { and, asc, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import { batchedReads } from '../../db/batched-reads.js';
import type { Db, Executor } from '../../db/client.js';
import { isoText } from '../../db/columns.js';
import { preparedShapes } from '../../db/prepared.js';
import { organizations } from '../tenancy/index.js';
import { digestColumns, recordColumns } from './registry.repo.js';
import { registryCounts, registryExperts } from './registry.tables.js';

// List Experts: one prepared statement per combination of the query's optional parts (registry.repo.ts holds
// the reads by key and the writes).

const e = registryExperts;

/** A list query as the faces parse it (`listExpertsQuery` in registry-faces/registry.schemas.ts). */
export interface ListExpertsQuery {
  organizationId?: string;
  filter?: string;
  q?: string;
  sort?: 'name' | 'version' | 'createdAt' | 'updatedAt';
  order: 'asc' | 'desc';
  take: number;
  skip: number;
}

const SORT_COLUMNS = {
  name: e.name,
  version: e.versionOrder,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
} as const;

/** Escapes LIKE wildcards: `_` is a legal name character. */
const likePrefix = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** How a face lists: digests or whole records, and whether only Experts that run on runtime v1.0. */
export interface ListShape {
  records: boolean;
  runtimeV1_0Only: boolean;
}
const DIGESTS: ListShape = { records: false, runtimeV1_0Only: false };

/** Which optional parts a list query has: each combination is a prepared statement of its own. */
type ListQueryShape = {
  records: boolean;
  runtimeV1_0Only: boolean;
  organization: boolean;
  filter: boolean;
  q: boolean;
  sort: NonNullable<ListExpertsQuery['sort']>;
  order: ListExpertsQuery['order'];
};

const shapeOf = (query: ListExpertsQuery, shape: ListShape): ListQueryShape => ({
  records: shape.records,
  runtimeV1_0Only: shape.runtimeV1_0Only,
  organization: query.organizationId !== undefined,
  filter: Boolean(query.filter),
  q: Boolean(query.q),
  sort: query.sort ?? 'createdAt',
  order: query.order,
});

/** The values of a list query's placeholders. */
function listValues(query: ListExpertsQuery) {
  const q = query.q ? likePrefix(query.q.toLowerCase()).slice(0, -1) : '';
  return {
    organizationId: query.organizationId,
    filter: query.filter ? likePrefix(query.filter.toLowerCase()) : undefined,
    qStart: `${q}%`,
    qScoped: `%/${q}%`,
    qDashed: `%-${q}%`,
    qUnderscored: `%\\_${q}%`,
    qAnywhere: `%${q}%`,
    take: query.take,
    skip: query.skip,
  };
}

const placeholder = sql.placeholder;

function listWhere(shape: ListQueryShape): SQL | undefined {
  const conditions: SQL[] = [eq(e.isLatest, true)];
  if (shape.runtimeV1_0Only) conditions.push(eq(e.runsOnV1_0, true));
  if (shape.organization) conditions.push(eq(e.organizationId, placeholder('organizationId')));
  if (shape.filter) conditions.push(sql`${e.name} LIKE ${placeholder('filter')}`);
  // The search (`q`, docs/registry.md "List"): a name starting with the text, or a part of it after the
  // scope or a `-` / `_` (`search` finds `web-search`, `@acme/search-kit`), or a description containing it,
  // in any case. No B-tree answers a substring: the condition filters the latest versions as the sort's
  // partial index reads them in order (one row per name), so a page stops after `take` matches.
  if (shape.q) {
    conditions.push(sql`(${e.name} LIKE ${placeholder('qStart')} OR ${e.name} LIKE ${placeholder('qScoped')}
      OR ${e.name} LIKE ${placeholder('qDashed')} OR ${e.name} LIKE ${placeholder('qUnderscored')}
      OR lower(${e.description}) LIKE ${placeholder('qAnywhere')})`);
  }
  return and(...conditions);
}

/** A list's times as text (a page of 100 made 300 Dates only to turn each back into text). */
const listTimes = {
  createdAt: isoText(e.createdAt),
  updatedAt: isoText(e.updatedAt),
  ownerCreatedAt: isoText(organizations.createdAt),
};

/** The page query of List Experts, its values as placeholders (bench/explain-registry.ts shows its plans). */
export function listPageQuery(executor: Executor, shape: ListQueryShape) {
  const direction = shape.order === 'asc' ? asc : desc;
  const column = SORT_COLUMNS[shape.sort];
  // Both column sets share the digest's fields; records add instruction, skills, delegates and status.
  const columns = { ...(shape.records ? recordColumns : digestColumns), ...listTimes };
  return (
    executor
      .select(columns as typeof recordColumns & typeof listTimes)
      .from(e)
      .innerJoin(organizations, eq(organizations.id, e.organizationId))
      .where(listWhere(shape))
      // Names are unique among latest holders; the other sorts break ties by id, as their indexes do.
      .orderBy(...(column === e.name ? [direction(column)] : [direction(column), direction(e.id)]))
      .limit(placeholder('take'))
      .offset(placeholder('skip'))
  );
}

/**
 * meta.total: from registry_counts unless a name filter applies (then an index range count); for a face that
 * lists only Experts running on runtime v1.0, less the latest versions that need a newer one (a partial index
 * holds exactly those, so the count stays small).
 */
export function listCountQuery(executor: Executor, shape: ListQueryShape) {
  if (shape.filter || shape.q) {
    return executor.select({ total: count() }).from(e).where(listWhere(shape));
  }
  const ofOrganization = (column: typeof e.organizationId | typeof registryCounts.organizationId) =>
    shape.organization ? sql`${column} = ${placeholder('organizationId')}` : sql`true`;
  const newer = shape.runtimeV1_0Only
    ? sql`(SELECT count(*) FROM ${e} WHERE ${e.isLatest} AND NOT ${e.runsOnV1_0} AND ${ofOrganization(e.organizationId)})`
    : sql`0`;
  const total = sql<number>`(coalesce(sum(${registryCounts.latest}), 0) - ${newer})::int`.mapWith(Number);
  return executor.select({ total }).from(registryCounts).where(ofOrganization(registryCounts.organizationId));
}

/**
 * List Experts' page and total, each a statement prepared once per shape (docs/performance.md). Identical
 * lists asked for in one event-loop turn are read once, after every one of them was asked (batchedReads), so
 * each answer is as fresh as a read of its own; different lists of the turn are read side by side.
 */
export function createListReader(db: Db, connections: number) {
  // The count leaves sort and order out of its name: they do not change it.
  const pages = preparedShapes('registry_list', (shape: ListQueryShape, name) =>
    listPageQuery(db, shape).prepare(name),
  );
  const counts = preparedShapes(
    'registry_count',
    (shape: Omit<ListQueryShape, 'sort' | 'order' | 'records'>, name) =>
      listCountQuery(db, { ...shape, records: false, sort: 'createdAt', order: 'desc' }).prepare(name),
  );
  type Asked = { key: string; shape: ListQueryShape; values: ReturnType<typeof listValues> };
  const read = async ({ shape, values }: Asked) => {
    const { sort: _sort, order: _order, records: _records, ...counted } = shape;
    const [rows, [total]] = await Promise.all([
      pages(shape).execute(values),
      counts(counted).execute(values),
    ]);
    return { rows, total: total?.total ?? 0 };
  };
  const loader = batchedReads(async (asked: readonly Asked[]) => {
    const reads = new Map<string, ReturnType<typeof read>>();
    for (const one of asked) if (!reads.has(one.key)) reads.set(one.key, read(one));
    return Promise.all(asked.map((one) => reads.get(one.key)!));
  }, connections);
  return (query: ListExpertsQuery, listShape: ListShape = DIGESTS) => {
    // The shape and values are what the statement reads: equal ones are the same list.
    const shape = shapeOf(query, listShape);
    const values = listValues(query);
    return loader.load({ key: JSON.stringify([shape, values]), shape, values });
  };
}

/** The shape of a list query, for bench/explain-registry.ts. */
export { listValues as listQueryValues, shapeOf as listQueryShape };
