import { and, asc, desc, eq, inArray, lt } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { ApiError, notFound } from '../../http/errors.js';
import { decodeCursor, encodeCursor } from '../../http/seq-cursor.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { cursorPage } from '../../lib/page.js';
import { type Principal, requirePermission } from '../auth/index.js';
import { events, recordEvent } from '../events/index.js';
import { queueForEndpoint } from './deliveries.repo.js';
import type { DeliveryListQuery, DeliveryRecord } from './webhooks.schemas.js';
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from './webhooks.tables.js';

export interface DeliveriesServiceDeps {
  database: Database;
  clock: Clock;
  /** Tells this instance's worker there is something due now (it would find it at its next poll anyway). */
  wake: () => void;
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>;

/** An endpoint's delivery log, "send a test event" and "resend" (webhooks:manage, docs/webhooks.md). */
export function createDeliveriesService({ database, clock, wake }: DeliveriesServiceDeps) {
  const { db } = database;

  async function endpointOf(executor: Executor, principal: Principal, id: string) {
    const [row] = await executor
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organizationId, principal.organizationId)));
    // Another organization's endpoint reads as absent.
    if (!row) throw notFound(`Webhook endpoint ${id}`);
    return row;
  }

  /** Deliveries by id, presented with their attempts, in the order given. */
  async function present(ids: string[]): Promise<DeliveryRecord[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .select({ delivery: webhookDeliveries, eventType: events.type })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(inArray(webhookDeliveries.id, ids));
    const attempts = await db
      .select()
      .from(webhookDeliveryAttempts)
      .where(inArray(webhookDeliveryAttempts.deliveryId, ids))
      .orderBy(asc(webhookDeliveryAttempts.attemptedAt), asc(webhookDeliveryAttempts.id));
    const byId = new Map(rows.map((row) => [row.delivery.id, row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      if (!row) return [];
      const { delivery } = row;
      return [
        {
          id: delivery.id,
          eventId: delivery.eventId,
          eventType: row.eventType as DeliveryRecord['eventType'],
          status: delivery.status,
          nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt.toISOString() : null,
          attempts: attempts
            .filter((attempt) => attempt.deliveryId === id)
            .map((attempt) => ({
              at: attempt.attemptedAt.toISOString(),
              statusCode: attempt.statusCode,
              error: attempt.error,
              latencyMs: attempt.latencyMs,
              responseExcerpt: attempt.responseExcerpt,
            })),
          createdAt: delivery.createdAt.toISOString(),
          completedAt: delivery.completedAt?.toISOString() ?? null,
        },
      ];
    });
  }

  /** Refuses to queue for a disabled endpoint: nothing would be sent until it is enabled. */
  function requireEnabled(endpoint: typeof webhookEndpoints.$inferSelect) {
    if (!endpoint.enabled) {
      throw new ApiError('conflict', `Webhook endpoint ${endpoint.id} is disabled: enable it first`);
    }
  }

  return {
    /** The endpoint's deliveries, newest first, each with every attempt. */
    async list(principal: Principal, endpointId: string, query: DeliveryListQuery) {
      requirePermission(principal, 'webhooks:manage');
      await endpointOf(db, principal, endpointId);
      const before = query.cursor ? decodeCursor(query.cursor) : undefined;
      const rows = await db
        .select({ id: webhookDeliveries.id, seq: webhookDeliveries.seq })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.endpointId, endpointId),
            before === undefined ? undefined : lt(webhookDeliveries.seq, before),
            query.status === undefined ? undefined : eq(webhookDeliveries.status, query.status),
          ),
        )
        .orderBy(desc(webhookDeliveries.seq))
        .limit(query.limit + 1);
      const page = cursorPage(
        rows,
        query.limit,
        (last) => encodeCursor(last.seq),
        (row) => row.id,
      );
      return { data: await present(page.items), pagination: page.pagination };
    },

    /** Records a `webhook.test` event and queues it for this endpoint only. */
    async sendTest(principal: Principal, endpointId: string) {
      requirePermission(principal, 'webhooks:manage');
      const now = clock.now();
      const id = await db.transaction(async (tx) => {
        const endpoint = await endpointOf(tx, principal, endpointId);
        requireEnabled(endpoint);
        const eventId = newId();
        await recordEvent(tx, {
          id: eventId,
          organizationId: principal.organizationId,
          type: 'webhook.test',
          actor: principal,
          resource: { type: 'webhookEndpoint', id: endpointId },
          payload: { webhookEndpoint: { id: endpointId } },
          at: now,
        });
        return queueForEndpoint(tx, {
          organizationId: principal.organizationId,
          endpointId,
          eventId,
          at: now,
        });
      });
      wake();
      return (await present([id]))[0]!;
    },

    /**
     * Sends one of the organization's events to this endpoint again, whatever its type: the delivery of that
     * event to that endpoint keeps its id (the same `webhook-id`) and starts the retry schedule afresh.
     */
    async resend(principal: Principal, endpointId: string, eventId: string) {
      requirePermission(principal, 'webhooks:manage');
      const now = clock.now();
      const id = await db.transaction(async (tx) => {
        const endpoint = await endpointOf(tx, principal, endpointId);
        const [event] = await tx
          .select({ id: events.id })
          .from(events)
          .where(and(eq(events.id, eventId), eq(events.organizationId, principal.organizationId)));
        if (!event) throw notFound(`Event ${eventId}`);
        requireEnabled(endpoint);
        return queueForEndpoint(tx, {
          organizationId: principal.organizationId,
          endpointId,
          eventId,
          at: now,
        });
      });
      wake();
      return (await present([id]))[0]!;
    },
  };
}
