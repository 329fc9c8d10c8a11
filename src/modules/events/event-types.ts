/** The event types an endpoint can subscribe to; each one's payload is documented in docs/webhooks.md. */
export const EVENT_TYPES = [
  'expert.published',
  'expert.status_changed',
  'expert.tags_changed',
  'expert.deleted',
  'expert.taken_down',
  'expert.awaiting_approval',
  'expert.approved',
  'expert.rejected',
  'api_key.created',
  'api_key.revoked',
  'api_key.expiring',
  'connection.created',
  'connection.refresh_failed',
  'connection.disconnected',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'subscription.updated',
  'usage.threshold_reached',
  'webhook_endpoint.disabled',
  'mcp_server.published',
  'mcp_server.status_changed',
  'mcp_server.awaiting_approval',
  'mcp_server.approved',
  'mcp_server.rejected',
  'domain.verified',
  'domain.lapsed',
] as const;

/**
 * Every type Cadre records: the subscribable ones, and `webhook.test`, which goes only to the endpoint a
 * member asked to test (no endpoint subscribes to it).
 */
export const RECORDED_EVENT_TYPES = [...EVENT_TYPES, 'webhook.test'] as const;

export type EventType = (typeof RECORDED_EVENT_TYPES)[number];
