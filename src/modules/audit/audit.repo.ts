import { and, desc, eq, gte, lt, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import type { Principal } from '../auth/permissions.js';
import { recordEvent } from '../events/events.repo.js';
import { eventsForAuditChange } from '../events/from-audit.js';
import { type AuditMetadata, auditEvents } from './audit.tables.js';

/**
 * Who performed a change, for the audit trail: a member's credential, the operator (admin token), or Cadre
 * itself applying what a payment provider reported (`system`; `userId`: who opened the provider's page, when
 * known).
 */
export type Actor = { kind: 'admin' } | { kind: 'system'; userId?: string | null } | Principal;

export type AuditEventRow = typeof auditEvents.$inferSelect;

/**
 * Records one audit event. Call it inside the transaction of the change it records, so the trail holds
 * exactly the changes that happened (docs/organization-api.md, "Audit events"). The events the change tells
 * the systems around Cadre about (docs/webhooks.md) are written here too, in the same transaction.
 */
export async function recordAuditEvent(
  executor: Executor,
  event: {
    organizationId: string;
    action: string;
    actor: Actor;
    target: { type: string; id: string };
    at: Date;
    metadata?: AuditMetadata | undefined;
  },
): Promise<void> {
  const { actor } = event;
  await executor.insert(auditEvents).values({
    id: newId(),
    organizationId: event.organizationId,
    action: event.action,
    actorKind: actor.kind,
    actorUserId: actor.kind === 'admin' ? null : (actor.userId ?? null),
    actorApiKeyId: actor.kind === 'apiKey' ? actor.apiKeyId : null,
    actorSessionId: actor.kind === 'session' ? actor.sessionId : null,
    targetType: event.target.type,
    targetId: event.target.id,
    metadata: event.metadata ?? null,
    createdAt: event.at,
  });
  for (const derived of eventsForAuditChange(event)) {
    await recordEvent(executor, {
      organizationId: event.organizationId,
      type: derived.type,
      actor,
      resource: event.target,
      payload: derived.payload,
      at: event.at,
    });
  }
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

/** An organization's events, newest first; one more than `limit` when there is a next page. */
export function listAuditEventRows(
  executor: Executor,
  organizationId: string,
  query: AuditEventQuery,
): Promise<AuditEventRow[]> {
  return executor
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.organizationId, organizationId),
        query.before === undefined ? undefined : lt(auditEvents.seq, query.before),
        query.action === undefined ? undefined : eq(auditEvents.action, query.action),
        query.actor === undefined
          ? undefined
          : or(eq(auditEvents.actorUserId, query.actor), eq(auditEvents.actorApiKeyId, query.actor)),
        query.from === undefined ? undefined : gte(auditEvents.createdAt, query.from),
        query.to === undefined ? undefined : lt(auditEvents.createdAt, query.to),
      ),
    )
    .orderBy(desc(auditEvents.seq))
    .limit(query.limit + 1);
}
