import { and, asc, desc, eq, gt, inArray, lt } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import type { Actor } from '../audit/audit.repo.js';
import { enqueueEventDeliveries } from '../webhooks/deliveries.repo.js';
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
 * Records one event and queues its webhook deliveries. Call it inside the transaction of the change it tells
 * about: the event and its deliveries exist exactly when the change does (docs/webhooks.md). Answers
 * false when `dedupeKey` was already used.
 */
export async function recordEvent(executor: Executor, event: NewEvent): Promise<boolean> {
  const { actor } = event;
  const [inserted] = await executor
    .insert(events)
    .values({
      id: event.id ?? newId(),
      organizationId: event.organizationId,
      type: event.type,
      actorKind: actor.kind,
      actorUserId: actor.kind === 'admin' ? null : (actor.userId ?? null),
      actorApiKeyId: actor.kind === 'apiKey' ? actor.apiKeyId : null,
      resourceType: event.resource.type,
      resourceId: event.resource.id,
      payload: event.payload,
      dedupeKey: event.dedupeKey ?? null,
      createdAt: event.at,
    })
    .onConflictDoNothing({ target: events.dedupeKey })
    .returning({ id: events.id });
  if (!inserted) return false;
  await enqueueEventDeliveries(executor, { ...event, id: inserted.id });
  return true;
}

export interface EventQuery {
  limit: number;
  /** The keyset position (the `seq` of the last event of the previous page). */
  after?: number | undefined;
  order: 'newest' | 'oldest';
  types?: string[] | undefined;
}

/** An organization's events in `order`; one more than `limit` when there is a next page. */
export function listEventRows(executor: Executor, organizationId: string, query: EventQuery) {
  const newest = query.order === 'newest';
  return executor
    .select()
    .from(events)
    .where(
      and(
        eq(events.organizationId, organizationId),
        query.after === undefined
          ? undefined
          : newest
            ? lt(events.seq, query.after)
            : gt(events.seq, query.after),
        query.types === undefined || query.types.length === 0 ? undefined : inArray(events.type, query.types),
      ),
    )
    .orderBy(newest ? desc(events.seq) : asc(events.seq))
    .limit(query.limit + 1);
}
