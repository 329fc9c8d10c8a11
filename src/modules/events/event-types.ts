/** Every event type Cadre emits; each one's payload is documented in docs/webhooks.md. */
export const EVENT_TYPES = [
  'expert.published',
  'expert.status_changed',
  'expert.tags_changed',
  'expert.deleted',
  'expert.taken_down',
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
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
