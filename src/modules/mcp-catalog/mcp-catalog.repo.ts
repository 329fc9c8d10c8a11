import { and, asc, desc, eq, gt, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  type CatalogAccess,
  mcpCatalogs,
  mcpServerVersions,
  type ServerVersionRow,
} from './mcp-catalog.tables.js';

/** A version on the catalog: it never waited for approval, or it was approved (pending and rejected are not). */
const listed = () =>
  or(isNull(mcpServerVersions.approval), eq(mcpServerVersions.approval, 'approved')) as SQL;
export const isListed = (row: Pick<ServerVersionRow, 'approval'>) =>
  row.approval === null || row.approval === 'approved';

/**
 * The catalog's queries. Lists walk (name, version) in byte order with a keyset cursor, so a page costs the
 * same wherever it is; the IDE's list (version=latest) walks the partial index of latest versions only.
 */

export async function readCatalog(executor: Executor, organizationId: string) {
  const [row] = await executor
    .select()
    .from(mcpCatalogs)
    .where(eq(mcpCatalogs.organizationId, organizationId));
  return row;
}

export async function catalogByLinkHash(executor: Executor, linkSecretHash: string) {
  const [row] = await executor
    .select()
    .from(mcpCatalogs)
    .where(eq(mcpCatalogs.linkSecretHash, linkSecretHash));
  return row;
}

export async function writeCatalog(
  executor: Executor,
  row: {
    organizationId: string;
    access: CatalogAccess;
    linkSecretHash?: string;
    updatedAt: Date;
    updatedByUserId: string;
  },
) {
  const { organizationId, ...change } = row;
  await executor
    .insert(mcpCatalogs)
    .values(row)
    .onConflictDoUpdate({ target: mcpCatalogs.organizationId, set: change });
}

/** Where the previous page ended: the last row's name and version, opaque to clients (base64url). */
export interface Cursor {
  name: string;
  version: string;
}
export const encodeCursor = (cursor: Cursor): string =>
  Buffer.from(JSON.stringify([cursor.name, cursor.version])).toString('base64url');
export function decodeCursor(text: string): Cursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2) {
      const [name, version] = value as unknown[];
      if (typeof name === 'string' && typeof version === 'string') return { name, version };
    }
  } catch {
    // not one of ours: the caller answers 400
  }
  return undefined;
}

export interface ListFilter {
  after?: Cursor | undefined;
  limit: number;
  search?: string | undefined;
  updatedSince?: Date | undefined;
  /** `latest`, one exact version, or every version. */
  version?: string | undefined;
  includeDeleted: boolean;
}

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listVersions(executor: Executor, organizationId: string, filter: ListFilter) {
  const t = mcpServerVersions;
  const conditions: SQL[] = [eq(t.organizationId, organizationId), listed()];
  if (filter.version === 'latest') conditions.push(eq(t.isLatest, true));
  else if (filter.version !== undefined) conditions.push(eq(t.version, filter.version));
  if (!filter.includeDeleted) conditions.push(ne(t.status, 'deleted'));
  if (filter.search) conditions.push(sql`${t.name} ILIKE ${likePattern(filter.search)}`);
  if (filter.updatedSince) conditions.push(gt(t.updatedAt, filter.updatedSince));
  // One latest version per name: the list of latest versions walks names alone, in the partial index's order.
  const latestOnly = filter.version === 'latest';
  if (filter.after) {
    const { name, version } = filter.after;
    conditions.push(
      latestOnly
        ? gt(t.name, name)
        : (or(gt(t.name, name), and(eq(t.name, name), gt(t.version, version))) as SQL),
    );
  }
  return executor
    .select()
    .from(t)
    .where(and(...conditions))
    .orderBy(...(latestOnly ? [asc(t.name)] : [asc(t.name), asc(t.version)]))
    .limit(filter.limit);
}

export async function versionsOf(executor: Executor, organizationId: string, name: string, lock = false) {
  const t = mcpServerVersions;
  const query = executor
    .select()
    .from(t)
    .where(and(eq(t.organizationId, organizationId), eq(t.name, name)))
    .orderBy(asc(t.publishedAt), asc(t.id));
  return lock ? query.for('update') : query;
}

/** Serializes writes to one server name (its versions and which one is latest). */
export async function lockServerName(executor: Executor, organizationId: string, name: string) {
  await executor.execute(
    sql`SELECT pg_advisory_xact_lock(hashtextextended(${`mcp:${organizationId}:${name}`}, 0))`,
  );
}

export async function insertVersion(executor: Executor, row: typeof mcpServerVersions.$inferInsert) {
  await executor.insert(mcpServerVersions).values(row);
}

export async function updateVersion(
  executor: Executor,
  id: string,
  change: Partial<
    Pick<
      ServerVersionRow,
      | 'status'
      | 'statusMessage'
      | 'statusChangedAt'
      | 'isLatest'
      | 'updatedAt'
      | 'approval'
      | 'approvalDecidedByUserId'
      | 'approvalDecidedAt'
    >
  >,
) {
  await executor.update(mcpServerVersions).set(change).where(eq(mcpServerVersions.id, id));
}

/**
 * Whether an active version of the organization's catalog lists this package (registry type, identifier and
 * exact version) or this remote URL: a containment test on the server.json (`@>`).
 */
export async function activeVersionLists(
  executor: Executor,
  organizationId: string,
  entry: { packages: Array<Record<string, string>> } | { remotes: Array<{ url: string }> },
): Promise<boolean> {
  const t = mcpServerVersions;
  const [row] = await executor
    .select({ id: t.id })
    .from(t)
    .where(
      and(
        eq(t.organizationId, organizationId),
        eq(t.status, 'active'),
        listed(),
        sql`${t.server} @> ${JSON.stringify(entry)}::jsonb`,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * The versions (deleted ones left out) whose server.json lists this package or remote URL (`@>`): the
 * catalog entries an Expert's skill comes from.
 */
export async function versionsListing(
  executor: Executor,
  organizationId: string,
  entry: { packages: Array<Record<string, string>> } | { remotes: Array<{ url: string }> },
) {
  const t = mcpServerVersions;
  return executor
    .select({ name: t.name, version: t.version, status: t.status, isLatest: t.isLatest })
    .from(t)
    .where(
      and(
        eq(t.organizationId, organizationId),
        ne(t.status, 'deleted'),
        listed(),
        sql`${t.server} @> ${JSON.stringify(entry)}::jsonb`,
      ),
    )
    .orderBy(asc(t.name), asc(t.version));
}

/** The versions that waited for approval, in one state: pending oldest first, decided newest first. */
export async function versionsByApproval(
  executor: Executor,
  organizationId: string,
  approval: 'pending' | 'approved' | 'rejected',
) {
  const t = mcpServerVersions;
  return executor
    .select()
    .from(t)
    .where(and(eq(t.organizationId, organizationId), eq(t.approval, approval)))
    .orderBy(approval === 'pending' ? asc(t.publishedAt) : desc(t.approvalDecidedAt))
    .limit(100);
}

export async function versionById(executor: Executor, organizationId: string, id: string) {
  const t = mcpServerVersions;
  const [row] = await executor
    .select()
    .from(t)
    .where(and(eq(t.organizationId, organizationId), eq(t.id, id)));
  return row;
}
