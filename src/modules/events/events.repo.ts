import { and, asc, desc, eq, gt, lt, type SQL, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { preparedShapes } from '../../db/prepared.js';
import { newId } from '../../lib/ids.js';
import type { Actor } from '../audit/audit.repo.js';
import { queueDeliveriesOfEvents } from '../webhooks/deliveries.repo.js';
import type { EventType } from './event-types.js';
import { type EventPayload, events } from './events.tables.js';

export type EventRow = typeof events.$inferSelect;

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
 * The common table expressions that insert events (as `name`, in the given order, answering those written:
 * one whose `dedupeKey` was already used is not) and queue their webhook deliveries. recordEvent runs them
 * alone; the audit trail runs them in its own insert (audit.repo.ts), so a change pays one round trip for
 * its audit row, events and deliveries.
 */
export function eventWrites(events: NewEvent[], name: string): SQL {
  const rows = events.map((event) => {
    const { actor } = event;
    return sql`(${event.id ?? newId()}, ${event.organizationId}, ${event.type}, ${actor.kind},
        ${actor.kind === 'admin' ? null : (actor.userId ?? null)},
        ${actor.kind === 'apiKey' ? actor.apiKeyId : null}, ${event.resource.type}, ${event.resource.id},
        ${JSON.stringify(event.payload)}::jsonb, ${event.dedupeKey ?? null}, ${event.at}::timestamptz)`;
  });
  const inserted = sql.identifier(name);
  // One multi-row VALUES: rows take their seq in this order (CTEs of one statement run in no set order).
  return sql`${inserted} AS (
      INSERT INTO events (id, organization_id, type, actor_kind, actor_user_id, actor_api_key_id,
        resource_type, resource_id, payload, dedupe_key, created_at)
      VALUES ${sql.join(rows, sql`, `)}
      ON CONFLICT (dedupe_key) DO NOTHING
      RETURNING id, organization_id, type, created_at
    ), ${sql.identifier(`${name}_queued`)} AS (${queueDeliveriesOfEvents(inserted)} RETURNING 1)`;
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

/**
 * An organization's events in `order`, one more than `limit` when there is a next page: a named prepared
 * statement per shape (order, cursor, type filter), built on first use.
 */
export function createEventReads(db: Db) {
  const statement = preparedShapes(
    'event_page',
    (shape: { oldest: boolean; after: boolean; typed: boolean }, name) =>
      db
        .select()
        .from(events)
        .where(
          and(
            eq(events.organizationId, sql.placeholder('organizationId')),
            shape.after ? (shape.oldest ? gt : lt)(events.seq, sql.placeholder('after')) : undefined,
            shape.typed ? sql`${events.type} = ANY(${sql.placeholder('types')}::text[])` : undefined,
          ),
        )
        .orderBy(shape.oldest ? asc(events.seq) : desc(events.seq))
        .limit(sql.placeholder('limit'))
        .prepare(name),
  );
  return (organizationId: string, query: EventQuery): Promise<EventRow[]> =>
    statement({
      oldest: query.order === 'oldest',
      after: query.after !== undefined,
      typed: query.types !== undefined && query.types.length > 0,
    }).execute({ organizationId, after: query.after, types: query.types, limit: query.limit + 1 });
}
