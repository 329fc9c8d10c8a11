import {
  and,
  asc,
  desc,
  eq,
  getTableColumns,
  gt,
  lt,
  type Placeholder,
  type SQL,
  type SQLWrapper,
  sql,
} from 'drizzle-orm';
import { asLimit, batchedPages, columnsOf } from '../../db/batched-pages.js';
import type { Database, Executor } from '../../db/client.js';
import { isoText } from '../../db/columns.js';
import { prepareDecoded } from '../../db/decoded-rows.js';
import { preparedShapes } from '../../db/prepared.js';
import { newId } from '../../lib/ids.js';
import type { Actor } from '../auth/index.js';
import type { EventType } from './event-types.js';
import { type EventPayload, events } from './events.tables.js';

export type EventRow = typeof events.$inferSelect;
/** An event as a page reads it: its time as the answer writes it (docs/performance.md, "Answers"). */
export type EventPageRow = Omit<EventRow, 'createdAt'> & { createdAt: string };

const pageSelection = { ...getTableColumns(events), createdAt: isoText(events.createdAt).as('created_at') };

export interface NewEvent {
  /** Its id when the caller needs to know it (default: a new one). */
  id?: string;
  organizationId: string;
  type: EventType;
  actor: Actor;
  resource: { type: string; id: string };
  payload: EventPayload;
  at: Date;
  /** For events a sweep emits: a second event with the same key is not written (the sweep may run anywhere). */
  dedupeKey?: string;
}

/**
 * A write over the events a statement inserts (`inserted`: their ids, organizations, types and times), run in
 * that statement: the webhooks module registers the queueing of their deliveries when it is composed, so
 * the events depend on no module built on them (docs/architecture.md, "Module map").
 */
export type EventFollower = (inserted: SQLWrapper) => SQL;

const followers = new Map<string, EventFollower>();

/** Registers (or, under the same name, replaces) a write over every event inserted; `name` names its CTE. */
export function followEvents(name: string, follower: EventFollower): void {
  followers.set(name, follower);
}

/**
 * The common table expressions that insert events (as `name`, in the given order, answering those written:
 * one whose `dedupeKey` was already used is not) and the writes that follow them (their webhook deliveries).
 * recordEvent runs them alone; the audit trail runs them in its own insert (./from-audit.ts), so a change
 * pays one round trip for its audit row, events and deliveries.
 */
export function eventWrites(events: NewEvent[], name: string): SQL {
  const rows = events.map((event) => {
    const { actor } = event;
    return sql`(${event.id ?? newId()}, ${event.organizationId}, ${event.type}, ${actor.kind},
        ${actor.kind === 'admin' || actor.kind === 'scim' ? null : (actor.userId ?? null)},
        ${actor.kind === 'apiKey' ? actor.apiKeyId : null}, ${event.resource.type}, ${event.resource.id},
        ${JSON.stringify(event.payload)}::jsonb, ${event.dedupeKey ?? null}, ${event.at}::timestamptz)`;
  });
  const inserted = sql.identifier(name);
  // Only a sweep's events carry a dedupe key; without one nothing can conflict, and an insert that names no
  // conflict skips the speculative insertion ON CONFLICT costs on every row.
  const onConflict = events.some((event) => event.dedupeKey !== undefined)
    ? sql`ON CONFLICT (dedupe_key) DO NOTHING`
    : sql``;
  // One multi-row VALUES: rows take their seq in this order (CTEs of one statement run in no set order).
  return sql`${inserted} AS (
      INSERT INTO events (id, organization_id, type, actor_kind, actor_user_id, actor_api_key_id,
        resource_type, resource_id, payload, dedupe_key, created_at)
      VALUES ${sql.join(rows, sql`, `)}
      ${onConflict}
      RETURNING id, organization_id, type, created_at
    )${sql.join(
      [...followers].map(
        ([follower, write]) =>
          sql`, ${sql.identifier(`${name}_${follower}`)} AS (${write(inserted)} RETURNING 1)`,
      ),
    )}`;
}

/**
 * Records one event and queues its webhook deliveries. Call it inside the transaction of the change it tells
 * about: the event and its deliveries exist exactly when the change does (docs/webhooks.md). Answers
 * false when `dedupeKey` was already used.
 */
export async function recordEvent(executor: Executor, event: NewEvent): Promise<boolean> {
  const result = await executor.execute(
    sql`WITH ${eventWrites([event], 'e')} SELECT count(*)::int AS inserted FROM e`,
  );
  return (result as unknown as { rows: Array<{ inserted: number }> }).rows[0]!.inserted > 0;
}

export interface EventQuery {
  limit: number;
  /** The keyset position (the `seq` of the last event of the previous page). */
  after?: number | undefined;
  order: 'newest' | 'oldest';
  types?: string[] | undefined;
}

/** What each caller of an events page gives (src/db/batched-pages.ts). */
const EVENT_PAGE_CALLERS = { organization_id: 'text', after_seq: 'bigint', page_limit: 'int' } as const;

type EventShape = { oldest: boolean; after: boolean };

/** An organization's events, from the newest or the oldest, after `after` when given. */
function eventsWhere(shape: EventShape, organizationId: SQL | Placeholder, after: SQL | Placeholder) {
  return and(
    eq(events.organizationId, organizationId),
    shape.after ? (shape.oldest ? gt : lt)(events.seq, after) : undefined,
  );
}

/**
 * An organization's events in `order`, one more than `limit` when there is a next page. Each shape (order,
 * cursor) is a statement answering every page of that shape asked for in one event-loop turn; a type filter
 * (an array per caller, which `unnest` would flatten) is a prepared statement per request.
 */
export function createEventReads(database: Pick<Database, 'db' | 'connections'>) {
  const { db } = database;
  const pages = preparedShapes('event_pages', (shape: EventShape, name) =>
    batchedPages<typeof EVENT_PAGE_CALLERS, EventPageRow>(database, name, EVENT_PAGE_CALLERS, (caller) => {
      const subquery = db
        .select(pageSelection)
        .from(events)
        .where(eventsWhere(shape, caller('organization_id'), caller('after_seq')))
        .orderBy(shape.oldest ? asc(events.seq) : desc(events.seq))
        .limit(asLimit(caller('page_limit')))
        .as('page');
      const order = shape.oldest ? asc(subquery.seq) : desc(subquery.seq);
      return { subquery, fields: columnsOf(subquery, pageSelection), order: [order] };
    }),
  );
  const typed = preparedShapes('event_page_typed', (shape: EventShape, name) =>
    prepareDecoded<EventPageRow>(
      db,
      name,
      db
        .select(pageSelection)
        .from(events)
        .where(
          and(
            eventsWhere(shape, sql.placeholder('organizationId'), sql.placeholder('after')),
            sql`${events.type} = ANY(${sql.placeholder('types')}::text[])`,
          ),
        )
        .orderBy(shape.oldest ? asc(events.seq) : desc(events.seq))
        .limit(sql.placeholder('limit')),
      pageSelection,
    ),
  );
  return (organizationId: string, query: EventQuery): Promise<EventPageRow[]> => {
    const shape = { oldest: query.order === 'oldest', after: query.after !== undefined };
    if (query.types?.length) {
      return typed(shape).execute({
        organizationId,
        after: query.after,
        types: query.types,
        limit: query.limit + 1,
      });
    }
    return pages(shape)({
      organization_id: organizationId,
      after_seq: query.after,
      page_limit: query.limit + 1,
    });
  };
}
