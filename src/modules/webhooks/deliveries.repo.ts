import { type SQLWrapper, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';

/**
 * The outbox's queries (docs/webhooks.md, "Deliveries"). Why an outbox in our own table rather than pg-boss
 * or graphile-worker: a delivery must be written in the very transaction of its event (drizzle's, on either
 * engine), and both libraries enqueue through their own client and connection pool, keep their own schema
 * of PL/pgSQL functions, and wake workers with LISTEN/NOTIFY on a dedicated connection; the embedded
 * database (PGlite) is one in-process connection that no second client can open. One table claimed with
 * FOR UPDATE SKIP LOCKED works the same on both.
 */

/** A delivery's `webhook-id`: `msg_` and 32 hex digits, made by the database inside the event's insert. */
const NEW_DELIVERY_ID = sql`'msg_' || replace(gen_random_uuid()::text, '-', '')`;

/**
 * The INSERT that queues events for every enabled endpoint of their organization subscribed to their type.
 * It reads the events (id, organization_id, type, created_at) from the CTE `inserted` of the same statement
 * (events.repo.ts), so events and their deliveries are written together, in the change's transaction: a
 * committed event always has its deliveries.
 */
export const queueDeliveriesOfEvents = (inserted: SQLWrapper) => sql`
  INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, next_attempt_at, created_at)
  SELECT ${NEW_DELIVERY_ID}, w.organization_id, w.id, e.id, e.created_at, e.created_at
  FROM ${inserted} e JOIN webhook_endpoints w
    ON w.organization_id = e.organization_id AND w.enabled AND e.type = ANY (w.event_types)`;

/**
 * Queues (or queues again) one event for one endpoint, due now: "send a test event" and "resend". A delivery
 * of that event to that endpoint that exists keeps its id (so the receiver sees the same `webhook-id`) and
 * starts the retry schedule afresh.
 */
export async function queueForEndpoint(
  executor: Executor,
  input: { organizationId: string; endpointId: string; eventId: string; at: Date },
): Promise<string> {
  const result = await executor.execute(sql`
    INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, next_attempt_at, created_at)
    VALUES (${NEW_DELIVERY_ID}, ${input.organizationId}, ${input.endpointId}, ${input.eventId}, ${input.at}, ${input.at})
    ON CONFLICT (event_id, endpoint_id) DO UPDATE
      SET status = 'pending', attempts = 0, next_attempt_at = excluded.next_attempt_at, completed_at = NULL
    RETURNING id`);
  return (result as unknown as { rows: Array<{ id: string }> }).rows[0]!.id;
}

export interface ClaimedDelivery {
  id: string;
  organizationId: string;
  endpointId: string;
  eventId: string;
  attempts: number;
}

export interface ClaimOptions {
  now: Date;
  /** The lease: until then no other worker takes these rows; past it (the worker died) they are due again. */
  leaseMs: number;
  token: string;
  /** Organizations a round serves at most, the oldest-due first. */
  organizations: number;
  /** Deliveries a round takes per organization. */
  perOrganization: number;
  /** Organizations this worker already has as many deliveries in flight for as it allows. */
  busyOrganizations: string[];
}

/**
 * Claims due deliveries of enabled endpoints: at most `perOrganization` per organization per round, so one
 * organization's backlog or slow endpoint never holds up another's. Rows another worker is claiming right
 * now are skipped (SKIP LOCKED), and the outer UPDATE checks the lease again, so two workers never hold
 * the same row.
 */
export async function claimDue(executor: Executor, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const { now } = options;
  const until = new Date(now.getTime() + options.leaseMs);
  const busy = sql`ARRAY[${sql.join(
    options.busyOrganizations.map((id) => sql`${id}`),
    sql`, `,
  )}]::text[]`;
  const result = await executor.execute(sql`
    UPDATE webhook_deliveries AS d
    SET claimed_until = ${until}, claim_token = ${options.token}
    WHERE d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until <= ${now})
      AND d.id IN (
        SELECT c.id
        FROM (
          SELECT w.organization_id
          FROM webhook_deliveries w JOIN webhook_endpoints e ON e.id = w.endpoint_id AND e.enabled
          WHERE w.status = 'pending' AND w.next_attempt_at <= ${now}
            AND (w.claimed_until IS NULL OR w.claimed_until <= ${now})
            AND w.organization_id <> ALL (${busy})
          GROUP BY w.organization_id
          ORDER BY min(w.next_attempt_at)
          LIMIT ${options.organizations}
        ) o
        CROSS JOIN LATERAL (
          SELECT w.id
          FROM webhook_deliveries w JOIN webhook_endpoints e ON e.id = w.endpoint_id AND e.enabled
          WHERE w.organization_id = o.organization_id AND w.status = 'pending'
            AND w.next_attempt_at <= ${now} AND (w.claimed_until IS NULL OR w.claimed_until <= ${now})
          ORDER BY w.next_attempt_at
          LIMIT ${options.perOrganization}
          FOR UPDATE OF w SKIP LOCKED
        ) c
      )
    RETURNING d.id, d.organization_id, d.endpoint_id, d.event_id, d.attempts`);
  return (result as unknown as { rows: Array<Record<string, unknown>> }).rows.map((row) => ({
    id: row.id as string,
    organizationId: row.organization_id as string,
    endpointId: row.endpoint_id as string,
    eventId: row.event_id as string,
    attempts: Number(row.attempts),
  }));
}

/** How long the oldest due delivery of an enabled endpoint has waited (seconds; 0 when none is due). */
export async function queueLagSeconds(executor: Executor, now: Date): Promise<number> {
  const result = await executor.execute(sql`
    SELECT min(w.next_attempt_at) AS oldest
    FROM webhook_deliveries w JOIN webhook_endpoints e ON e.id = w.endpoint_id AND e.enabled
    WHERE w.status = 'pending' AND w.next_attempt_at <= ${now}`);
  const oldest = (result as unknown as { rows: Array<{ oldest: string | Date | null }> }).rows[0]?.oldest;
  if (oldest === null || oldest === undefined) return 0;
  return Math.max(0, (now.getTime() - new Date(oldest).getTime()) / 1000);
}
