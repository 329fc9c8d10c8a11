import type { SQL } from 'drizzle-orm';
import type { AuditChange, AuditMetadata } from '../audit/index.js';
import type { EventType } from './event-types.js';
import { eventWrites } from './events.repo.js';
import type { EventPayload } from './events.tables.js';

export interface DerivedEvent {
  type: EventType;
  payload: EventPayload;
}

/** `name@version` (an Expert's audit target) as the payload's `expert`. */
function expertOf(target: string, metadata: AuditMetadata) {
  const at = target.lastIndexOf('@');
  return {
    ...(typeof metadata.expertId === 'string' ? { id: metadata.expertId } : {}),
    name: target.slice(0, at),
    version: target.slice(at + 1),
  };
}

const pick = (metadata: AuditMetadata, keys: string[]) =>
  Object.fromEntries(keys.filter((key) => metadata[key] !== undefined).map((key) => [key, metadata[key]]));

/**
 * The events an audited change tells about. Every change that is audited passes here inside its
 * transaction (recordAuditEvent), so no event exists without its change and no change without its event.
 * Payloads are built from an allow-list of fields, never the whole metadata, so nothing secret can leak
 * into them (docs/webhooks.md documents each).
 */
function eventsForAuditChange({
  action,
  target,
  metadata = {},
}: Pick<AuditChange, 'action' | 'target' | 'metadata'>): DerivedEvent[] {
  switch (action) {
    case 'expert.published': {
      const expert = expertOf(target.id, metadata);
      const derived: DerivedEvent[] = [
        { type: 'expert.published', payload: { expert, ...pick(metadata, ['tags']) } },
      ];
      // The publish policy held `latest` back (docs/registry.md "Publish policies"): reviewers are told.
      const waiting = metadata.awaitingApproval as { approvalId: string; reasons: string[] } | undefined;
      if (waiting) {
        derived.push({
          type: 'expert.awaiting_approval',
          payload: { expert, approval: { id: waiting.approvalId, reasons: waiting.reasons } },
        });
      }
      return derived;
    }
    case 'expert.approved':
    case 'expert.rejected':
      return [
        {
          type: action,
          payload: {
            expert: expertOf(target.id, metadata),
            approval: { id: String(metadata.approvalId) },
            ...pick(metadata, ['movedLatest']),
          },
        },
      ];
    case 'expert.updated': {
      const expert = expertOf(target.id, metadata);
      const derived: DerivedEvent[] = [];
      const status = metadata.status as { from: string; to: string } | undefined;
      const tags = metadata.tags as { from: string[]; to: string[] } | undefined;
      if (status)
        derived.push({
          type: 'expert.status_changed',
          payload: { expert, from: status.from, to: status.to },
        });
      if (tags)
        derived.push({ type: 'expert.tags_changed', payload: { expert, from: tags.from, to: tags.to } });
      return derived;
    }
    case 'expert.deleted':
      return [{ type: 'expert.deleted', payload: { expert: expertOf(target.id, metadata) } }];
    case 'expert.taken_down':
      return [{ type: 'expert.taken_down', payload: { expert: expertOf(target.id, metadata) } }];
    case 'api_key.created':
      return [{ type: 'api_key.created', payload: { apiKey: { id: target.id } } }];
    case 'api_key.revoked':
      return [
        { type: 'api_key.revoked', payload: { apiKey: { id: target.id }, ...pick(metadata, ['cascade']) } },
      ];
    case 'connection.created':
      return [
        {
          type: 'connection.created',
          payload: {
            connection: { id: target.id, ...pick(metadata, ['projectId', 'environmentId', 'presetKey']) },
          },
        },
      ];
    case 'connection.deleted':
      return [
        {
          type: 'connection.disconnected',
          payload: {
            connection: { id: target.id, ...pick(metadata, ['projectId', 'environmentId', 'presetKey']) },
            ...pick(metadata, ['cascade']),
          },
        },
      ];
    case 'membership.created':
      return [
        { type: 'member.joined', payload: { member: { userId: target.id, ...pick(metadata, ['role']) } } },
      ];
    case 'membership.removed':
      return [
        { type: 'member.removed', payload: { member: { userId: target.id, ...pick(metadata, ['role']) } } },
      ];
    case 'subscription.created':
    case 'subscription.updated':
    case 'subscription.canceled':
      return [
        {
          type: 'subscription.updated',
          payload: { change: action.slice('subscription.'.length), ...pick(metadata, ['from', 'to']) },
        },
      ];
    case 'webhook_endpoint.disabled':
      return [
        {
          type: 'webhook_endpoint.disabled',
          payload: {
            webhookEndpoint: { id: target.id, ...pick(metadata, ['url']) },
            ...pick(metadata, ['reason']),
          },
        },
      ];
    case 'mcp_server.published':
    case 'mcp_server.status_changed':
    case 'mcp_server.approved':
    case 'mcp_server.rejected':
      return mcpServerEvents(action, target.id, metadata);
    case 'domain.verified':
    case 'domain.lapsed':
      // Verified email domains (docs/domains.md): a lapse ends the domain's sign-in routing.
      return [
        {
          type: action,
          payload: {
            domain: { id: target.id, ...pick(metadata, ['domain']) },
            ...pick(metadata, action === 'domain.verified' ? ['method'] : ['reason']),
          },
        },
      ];
    default:
      if (action.startsWith('membership.role_changed_to_')) {
        return [
          {
            type: 'member.role_changed',
            payload: { member: { userId: target.id }, ...pick(metadata, ['from', 'to']) },
          },
        ];
      }
      return [];
  }
}

/**
 * The events an audited change derives, as writes in the audit row's own statement (the events module
 * registers this with the audit trail, followAuditTrail): null when it derives none.
 */
export function eventWritesOfAuditChange(change: AuditChange): SQL | null {
  const derived = eventsForAuditChange(change);
  if (derived.length === 0) return null;
  const events = derived.map(({ type, payload }) => ({
    organizationId: change.organizationId,
    type,
    actor: change.actor,
    resource: change.target,
    payload,
    at: change.at,
  }));
  return eventWrites(events, 'events_written');
}

/** The MCP catalog's events (docs/mcp-registry.md): the target is `name@version`, as an Expert's. */
function mcpServerEvents(
  action: string,
  targetId: string,
  metadata: Record<string, unknown>,
): DerivedEvent[] {
  const at = targetId.lastIndexOf('@');
  const server = { name: targetId.slice(0, at), version: targetId.slice(at + 1) };
  const approval = { id: String(metadata.serverVersionId), ...pick(metadata, ['reasons']) };
  switch (action) {
    case 'mcp_server.published': {
      const derived: DerivedEvent[] = [
        { type: 'mcp_server.published', payload: { server, ...pick(metadata, ['isLatest']) } },
      ];
      // The publish policy held the version back (docs/mcp-registry.md): reviewers are told.
      const waiting = metadata.awaitingApproval as { reasons: string[] } | undefined;
      if (waiting) {
        derived.push({
          type: 'mcp_server.awaiting_approval',
          payload: { server, approval: { id: approval.id, reasons: waiting.reasons } },
        });
      }
      return derived;
    }
    case 'mcp_server.approved':
    case 'mcp_server.rejected':
      return [{ type: action, payload: { server, approval, ...pick(metadata, ['movedLatest']) } }];
    default: {
      const status = metadata.status as { from: string; to: string } | undefined;
      return [
        {
          type: 'mcp_server.status_changed',
          payload: { server, from: status?.from, to: status?.to, ...pick(metadata, ['statusMessage']) },
        },
      ];
    }
  }
}
