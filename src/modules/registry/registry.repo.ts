import { and, desc, eq, getTableColumns, inArray, ne, type SQL, sql } from 'drizzle-orm';
import { batchedReads } from '../../db/batched-reads.js';
import type { Db, Executor } from '../../db/client.js';
import { LATEST_TAG, type ParsedExpertKey } from '../../shared/expert/expert-definition.js';
import { organizations } from '../tenancy/index.js';
import {
  type ExpertRecord,
  registryCounts,
  registryExperts,
  registryNames,
  registryTags,
  registryTakedowns,
  registryVersions,
} from './registry.tables.js';

const e = registryExperts;
export const recordColumns = {
  ...getTableColumns(registryExperts),
  ownerSlug: organizations.slug,
  ownerCreatedAt: organizations.createdAt,
};

type NewExpert = typeof registryExperts.$inferInsert;

/** What a list item shows: no instruction or skills (they would be most of the bytes read). */
export const digestColumns = {
  id: e.id,
  name: e.name,
  version: e.version,
  minRuntimeVersion: e.minRuntimeVersion,
  description: e.description,
  tags: e.tags,
  isLatest: e.isLatest,
  organizationId: e.organizationId,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
  ownerSlug: organizations.slug,
  ownerCreatedAt: organizations.createdAt,
};

function selectRecords(executor: Executor) {
  return executor
    .select(recordColumns)
    .from(e)
    .innerJoin(organizations, eq(organizations.id, e.organizationId));
}

/** The Expert a key names: a version, a tag (custom or `latest`), or the name alone (its latest). */
export async function findByKey(executor: Executor, key: ParsedExpertKey): Promise<ExpertRecord | undefined> {
  let where: SQL | undefined;
  if (key.version !== undefined) where = and(eq(e.name, key.name), eq(e.version, key.version));
  else if (key.tag === undefined || key.tag === LATEST_TAG)
    where = and(eq(e.name, key.name), eq(e.isLatest, true));
  else {
    where = sql`${e.id} = (SELECT ${registryTags.expertId} FROM ${registryTags}
      WHERE ${registryTags.name} = ${key.name} AND ${registryTags.tag} = ${key.tag})`;
  }
  const [row] = await selectRecords(executor).where(where).limit(1);
  return row;
}

/**
 * The public reads, as prepared statements (built once per database handle: drizzle's query building was
 * a fifth of an uncached read's CPU; planned once per connection by PostgreSQL) taking arrays, so the reads
 * of one event-loop turn go to the database as one query (see batchedReads).
 */
function prepareReads(db: Db) {
  const names = sql`${sql.placeholder('names')}::text[]`;
  return {
    byVersions: selectRecords(db)
      .where(
        sql`(${e.name}, ${e.version}) IN (SELECT * FROM unnest(${names}, ${sql.placeholder('versions')}::text[]))`,
      )
      .prepare('registry_by_versions'),
    latestOf: selectRecords(db)
      .where(and(sql`${e.name} = ANY(${names})`, eq(e.isLatest, true)))
      .prepare('registry_latest_of'),
    byTag: selectRecords(db)
      .where(
        sql`${e.id} = (SELECT ${registryTags.expertId} FROM ${registryTags}
          WHERE ${registryTags.name} = ${sql.placeholder('name')} AND ${registryTags.tag} = ${sql.placeholder('tag')})`,
      )
      .limit(1)
      .prepare('registry_by_tag'),
    // Digests, for the Perstack-compatible face's versions listing (its items are whole digests).
    versions: db
      .select({ ...digestColumns, runsOnV1_0: e.runsOnV1_0 })
      .from(e)
      .innerJoin(organizations, eq(organizations.id, e.organizationId))
      .where(eq(e.name, sql.placeholder('name')))
      .orderBy(desc(e.versionOrder))
      .prepare('registry_versions_of'),
  };
}

const versionId = (key: { name: string; version: string }) => `${key.name}@${key.version}`;

/**
 * findByKey outside a transaction for the public reads: exact versions and latest versions are read in
 * batches per event-loop turn (one query for every request that arrived together), tags one by one.
 */
export function createRecordReader(db: Db, connections: number) {
  const reads = prepareReads(db);
  const byVersion = batchedReads(async (keys: readonly { name: string; version: string }[]) => {
    const rows: ExpertRecord[] = await reads.byVersions.execute({
      names: keys.map((key) => key.name),
      versions: keys.map((key) => key.version),
    });
    const found = new Map(rows.map((row) => [versionId(row), row]));
    return keys.map((key) => found.get(versionId(key)));
  }, connections);
  const latestOf = batchedReads(async (names: readonly string[]) => {
    const rows: ExpertRecord[] = await reads.latestOf.execute({ names: [...names] });
    const found = new Map(rows.map((row) => [row.name, row]));
    return names.map((name) => found.get(name));
  }, connections);
  return {
    readByKey: async (key: ParsedExpertKey): Promise<ExpertRecord | undefined> => {
      if (key.version !== undefined) return byVersion.load({ name: key.name, version: key.version });
      if (key.tag === undefined || key.tag === LATEST_TAG) return latestOf.load(key.name);
      const [row] = await reads.byTag.execute({ name: key.name, tag: key.tag });
      return row;
    },
    readVersions: (name: string) => reads.versions.execute({ name }),
  };
}

export async function findById(executor: Executor, id: string): Promise<ExpertRecord | undefined> {
  const [row] = await selectRecords(executor).where(eq(e.id, id)).limit(1);
  return row;
}

/** Locks the name's row for the rest of the transaction; every write to a name goes through here. */
export async function lockName(tx: Executor, name: string): Promise<{ organizationId: string } | undefined> {
  const [row] = await tx
    .select({ organizationId: registryNames.organizationId })
    .from(registryNames)
    .where(eq(registryNames.name, name))
    .for('update');
  return row;
}

/** First publisher wins: a concurrent claim waits for this one's commit, then finds the name taken. */
export async function claimName(
  tx: Executor,
  name: string,
  organizationId: string,
  now: Date,
): Promise<void> {
  await tx.insert(registryNames).values({ name, organizationId, createdAt: now }).onConflictDoNothing();
}

/**
 * Locks `own` FOR UPDATE and each of `shared` FOR SHARE (keeping delegate targets from being deleted
 * until this transaction ends), one name at a time in name order: every transaction that locks several
 * names takes them in the same order, so they cannot deadlock. Answers `own`'s owner.
 */
export async function lockNamesInOrder(
  tx: Executor,
  own: string,
  shared: string[],
): Promise<{ organizationId: string } | undefined> {
  let owner: { organizationId: string } | undefined;
  for (const name of [...new Set([own, ...shared])].sort()) {
    if (name === own) owner = await lockName(tx, name);
    else {
      await tx
        .select({ name: registryNames.name })
        .from(registryNames)
        .where(eq(registryNames.name, name))
        .for('share');
    }
  }
  return owner;
}

export async function isVersionReserved(tx: Executor, name: string, version: string): Promise<boolean> {
  const [row] = await tx
    .select({ version: registryVersions.version })
    .from(registryVersions)
    .where(and(eq(registryVersions.name, name), eq(registryVersions.version, version)));
  return row !== undefined;
}

export async function insertExpert(
  tx: Executor,
  expert: NewExpert & { id: string },
  now: Date,
): Promise<void> {
  await tx
    .insert(registryVersions)
    .values({ name: expert.name, version: expert.version, expertId: expert.id, publishedAt: now });
  await tx.insert(e).values(expert);
}

/** Takes `latest` from whichever version of the name holds it; answers that version's id. */
export async function dropLatest(tx: Executor, name: string, now: Date): Promise<string | undefined> {
  const [row] = await tx
    .update(e)
    .set({ isLatest: false, updatedAt: now })
    .where(and(eq(e.name, name), eq(e.isLatest, true)))
    .returning({ id: e.id });
  return row?.id;
}

export async function setLatest(tx: Executor, id: string, now: Date): Promise<void> {
  await tx.update(e).set({ isLatest: true, updatedAt: now }).where(eq(e.id, id));
}

/** Whether any version of the name was ever published (deleted ones included: their numbers stay reserved). */
export async function hasPublished(tx: Executor, name: string): Promise<boolean> {
  const [row] = await tx
    .select({ version: registryVersions.version })
    .from(registryVersions)
    .where(eq(registryVersions.name, name))
    .limit(1);
  return row !== undefined;
}

/**
 * Gives `tags` to the version `id` (replacing its custom tags): a tag another version of the name
 * held moves here. The registry_tags primary key (name, tag) is the one-holder invariant.
 */
export async function replaceTags(tx: Executor, name: string, id: string, tags: string[], now: Date) {
  await tx.delete(registryTags).where(eq(registryTags.expertId, id));
  if (tags.length > 0) {
    const moved = await tx
      .delete(registryTags)
      .where(and(eq(registryTags.name, name), inArray(registryTags.tag, tags)))
      .returning({ expertId: registryTags.expertId, tag: registryTags.tag });
    for (const from of moved) {
      await tx
        .update(e)
        .set({ tags: sql`array_remove(${e.tags}, ${from.tag})`, updatedAt: now })
        .where(eq(e.id, from.expertId));
    }
    await tx.insert(registryTags).values(tags.map((tag) => ({ name, tag, expertId: id })));
  }
  await tx.update(e).set({ tags, updatedAt: now }).where(eq(e.id, id));
}

export async function setStatus(tx: Executor, id: string, status: ExpertRecord['status'], now: Date) {
  await tx.update(e).set({ status, updatedAt: now }).where(eq(e.id, id));
}

/** A text[] literal of `values`, each a bound parameter. */
export const textArray = (values: string[]) =>
  sql`ARRAY[${sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )}]::text[]`;

/** Expert keys (other than `excludeId`'s own) among `keys` that some Expert delegates to. */
export async function delegatingExperts(tx: Executor, keys: string[], excludeId: string) {
  return tx
    .select({ name: e.name, version: e.version })
    .from(e)
    .where(and(sql`${e.delegates} && ${textArray(keys)}`, ne(e.id, excludeId)))
    .limit(5);
}

export async function deleteExpert(tx: Executor, id: string): Promise<void> {
  await tx.delete(e).where(eq(e.id, id));
}

/** Most versions `delegators` lists: the page an Expert's readers want, never an unbounded scan's worth. */
const DELEGATORS_LIMIT = 100;

/**
 * Versions whose delegates name any version or tag of `name` (`name`, `name@…`), newest first: who
 * depends on it. `_` is a LIKE wildcard and may appear in names, so the prefix is matched literally.
 */
export async function delegatorsOf(executor: Executor, name: string) {
  const prefix = `${name.replace(/[\\%_]/g, (c) => `\\${c}`)}@%`;
  return executor
    .select({ id: e.id, name: e.name, version: e.version, tags: e.tags, isLatest: e.isLatest })
    .from(e)
    .where(sql`EXISTS (SELECT 1 FROM unnest(${e.delegates}) AS d WHERE d = ${name} OR d LIKE ${prefix})`)
    .orderBy(desc(e.createdAt), desc(e.id))
    .limit(DELEGATORS_LIMIT);
}

export async function versionsOf(executor: Executor, name: string) {
  return executor
    .select({ id: e.id, name: e.name, version: e.version, tags: e.tags, isLatest: e.isLatest })
    .from(e)
    .where(eq(e.name, name))
    .orderBy(desc(e.versionOrder));
}

/** A name of `organizationId` gained its first live version (+1) or lost its last (-1). */
export async function countLatest(tx: Executor, organizationId: string, delta: 1 | -1): Promise<void> {
  await tx
    .insert(registryCounts)
    .values({ organizationId, latest: Math.max(delta, 0) })
    .onConflictDoUpdate({
      target: registryCounts.organizationId,
      set: { latest: sql`${registryCounts.latest} + ${delta}` },
    });
}

// ---------------------------------------------------------------------------------------------
// Takedowns (docs/registry.md "Takedowns")

export type Takedown = typeof registryTakedowns.$inferSelect;

export async function findTakedown(
  executor: Executor,
  name: string,
  version: string,
): Promise<Takedown | undefined> {
  const [row] = await executor
    .select()
    .from(registryTakedowns)
    .where(and(eq(registryTakedowns.name, name), eq(registryTakedowns.version, version)));
  return row;
}

export async function insertTakedown(tx: Executor, takedown: Takedown): Promise<void> {
  await tx.insert(registryTakedowns).values(takedown);
}

/**
 * Records on every Expert delegating to `key` (exactly) that this delegate is unavailable, and why; answers
 * the names of those Experts (their cached answers must go).
 */
export async function markDelegateUnavailable(tx: Executor, key: string, reason: string): Promise<string[]> {
  const entry = JSON.stringify([{ key, reason }]);
  const rows = await tx
    .update(e)
    .set({ unavailableDelegates: sql`coalesce(${e.unavailableDelegates}, '[]'::jsonb) || ${entry}::jsonb` })
    .where(sql`${e.delegates} && ARRAY[${key}]::text[]`)
    .returning({ name: e.name });
  return [...new Set(rows.map((row) => row.name))];
}
