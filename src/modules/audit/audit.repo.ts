import { and, desc, eq, getTableColumns, gte, lt, or, type SQL, sql } from 'drizzle-orm';
import { asLimit, batchedPages, columnsOf } from '../../db/batched-pages.js';
import type { Database, Executor } from '../../db/client.js';
import { isoText } from '../../db/columns.js';
import { preparedShapes } from '../../db/prepared.js';
import { newId } from '../../lib/ids.js';
import type { Actor } from '../auth/index.js';
import { type AuditMetadata, auditEvents } from './audit.tables.js';
import { type AuditRecordNames, pageNames, type ReadNames } from './audit-names.js';

export type { Actor };

/** The user an actor names (none for the operator and for SCIM). */
const actorUserId = (actor: Actor): string | null =>
  actor.kind === 'admin' || actor.kind === 'scim' ? null : (actor.userId ?? null);

export type AuditEventRow = typeof auditEvents.$inferSelect;
/**
 * An event as a page reads it: its time as the answer writes it, and the current names of who made the change
 * and what it was made to.
 */
export type AuditPageRow = Omit<AuditEventRow, 'createdAt'> & { createdAt: string } & ReadNames;

/**
 * Records one audit event. Call it inside the transaction of the change it records, so the trail holds
 * exactly the changes that happened (docs/organization-api.md, "Audit events"). The events the change tells
 * the systems around Cadre about (docs/webhooks.md) are written here too, in the same transaction.
 */
export interface AuditChange {
  organizationId: string;
  action: string;
  actor: Actor;
  target: { type: string; id: string };
  at: Date;
  metadata?: AuditMetadata | undefined;
}

/**
 * A write that follows every audited change in the audit row's own statement: common table expressions
 * (`name AS (…)`), or null when the change calls for none. The events module registers the events a change
 * derives (and, through them, the webhooks' deliveries) when it is composed, so the trail depends on no
 * module built on it (docs/architecture.md, "Module map").
 */
export type AuditFollower = (change: AuditChange) => SQL | null;

const followers = new Map<string, AuditFollower>();

/** Registers (or, under the same name, replaces) a write that follows every audited change. */
export function followAuditTrail(name: string, follower: AuditFollower): void {
  followers.set(name, follower);
}

export async function recordAuditEvent(executor: Executor, change: AuditChange): Promise<void> {
  const following = [...followers.values()].flatMap((follower) => follower(change) ?? []);
  await executor.execute(auditWrites(change, following));
}

/**
 * One statement: the audit row, and the writes that follow it (the events with their webhook deliveries) as
 * common table expressions of its insert, so a change pays one round trip for all of them
 * (bench/events-publish.ts).
 */
export function auditWrites(change: AuditChange, following: SQL[]): SQL {
  const { actor } = change;
  const insert = sql`INSERT INTO audit_events (id, organization_id, action, actor_kind, actor_user_id,
      actor_api_key_id, actor_session_id, target_type, target_id, metadata, created_at)
    VALUES (${newId()}, ${change.organizationId}, ${change.action}, ${actor.kind},
      ${actorUserId(actor)}, ${actor.kind === 'apiKey' ? actor.apiKeyId : null},
      ${actor.kind === 'session' ? actor.sessionId : null}, ${change.target.type}, ${change.target.id},
      ${change.metadata ? JSON.stringify(change.metadata) : null}::jsonb, ${change.at})`;
  if (following.length === 0) return insert;
  return sql`WITH ${sql.join(following, sql`, `)} ${insert}`;
}

/**
 * An organization's latest `limit` audit events, newest first, in the operator's view (docs/admin-api.md): every
 * column but the keyset position, the time as ISO text, without the names a page shows.
 */
export async function latestAuditEvents(executor: Executor, organizationId: string, limit: number) {
  const rows = await executor
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.organizationId, organizationId))
    .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
    .limit(limit);
  return rows.map(({ seq: _seq, ...row }) => ({ ...row, createdAt: row.createdAt.toISOString() }));
}

export interface AuditEventQuery {
  limit: number;
  /** Events older than this keyset position (the `seq` of the last event of the previous page). */
  before?: number | undefined;
  action?: string | undefined;
  /** A user id or an API key id: events that user or that key performed. */
  actor?: string | undefined;
  /** Events at or after this instant. */
  from?: Date | undefined;
  /** Events before this instant. */
  to?: Date | undefined;
}

/** What each caller of an audit page gives (src/db/batched-pages.ts); unused ones are null. */
const AUDIT_PAGE_CALLERS = {
  organization_id: 'text',
  before_seq: 'bigint',
  action_is: 'text',
  actor_is: 'text',
  from_at: 'timestamptz',
  to_at: 'timestamptz',
  page_limit: 'int',
} as const;

/**
 * Pages of an organization's audit events, newest first (one more than `limit` when there is a next page),
 * each event with the names it shows, as the modules owning the records name them (./audit-names.ts): a
 * statement per combination of filters, built on first use, each answering every page of its shape asked for
 * in one event-loop turn.
 */
export function createAuditEventReads(
  database: Pick<Database, 'db' | 'connections'>,
  names: AuditRecordNames,
) {
  const { db } = database;
  const pageSelection = {
    ...getTableColumns(auditEvents),
    createdAt: isoText(auditEvents.createdAt).as('created_at'),
    ...pageNames(names),
  };
  const pages = preparedShapes(
    'audit_pages',
    (shape: { before: boolean; action: boolean; actor: boolean; from: boolean; to: boolean }, name) =>
      batchedPages<typeof AUDIT_PAGE_CALLERS, AuditPageRow>(database, name, AUDIT_PAGE_CALLERS, (caller) => {
        const subquery = db
          .select(pageSelection)
          .from(auditEvents)
          .where(
            and(
              eq(auditEvents.organizationId, caller('organization_id')),
              shape.before ? lt(auditEvents.seq, caller('before_seq')) : undefined,
              shape.action ? eq(auditEvents.action, caller('action_is')) : undefined,
              shape.actor
                ? or(
                    eq(auditEvents.actorUserId, caller('actor_is')),
                    eq(auditEvents.actorApiKeyId, caller('actor_is')),
                  )
                : undefined,
              shape.from ? gte(auditEvents.createdAt, caller('from_at')) : undefined,
              shape.to ? lt(auditEvents.createdAt, caller('to_at')) : undefined,
            ),
          )
          .orderBy(desc(auditEvents.seq))
          .limit(asLimit(caller('page_limit')))
          .as('page');
        return { subquery, fields: columnsOf(subquery, pageSelection), order: [desc(subquery.seq)] };
      }),
  );
  return (organizationId: string, query: AuditEventQuery): Promise<AuditPageRow[]> =>
    pages({
      before: query.before !== undefined,
      action: query.action !== undefined,
      actor: query.actor !== undefined,
      from: query.from !== undefined,
      to: query.to !== undefined,
    })({
      organization_id: organizationId,
      before_seq: query.before,
      action_is: query.action,
      actor_is: query.actor,
      from_at: query.from?.toISOString(),
      to_at: query.to?.toISOString(),
      page_limit: query.limit + 1,
    });
}
