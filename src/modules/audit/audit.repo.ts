import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { auditEvents } from '../api-keys/api-keys.tables.js';
import type { Principal } from '../auth/permissions.js';

/** Who performed a change, for the audit trail: a member's credential, or the operator (admin token). */
export type Actor = { kind: 'admin' } | Principal;

/**
 * Records one audit event. Call it inside the transaction of the change it records, so the trail holds
 * exactly the changes that happened (docs/api-keys.md, "Audit events").
 */
export async function recordAuditEvent(
  executor: Executor,
  event: {
    organizationId: string;
    action: string;
    actor: Actor;
    target: { type: string; id: string };
    at: Date;
  },
): Promise<void> {
  const { actor } = event;
  await executor.insert(auditEvents).values({
    id: newId(),
    organizationId: event.organizationId,
    action: event.action,
    actorKind: actor.kind,
    actorUserId: actor.kind === 'admin' ? null : actor.userId,
    actorApiKeyId: actor.kind === 'apiKey' ? actor.apiKeyId : null,
    actorSessionId: actor.kind === 'session' ? actor.sessionId : null,
    targetType: event.target.type,
    targetId: event.target.id,
    createdAt: event.at,
  });
}
