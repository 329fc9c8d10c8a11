import type { components } from '../api/schema.js';
import { EVENT_TYPES } from '../generated/event-types.js';

/** Each event type in words (docs/webhooks.md has their payloads); a type missing here reads as its code. */
const EVENT_WORDS: Record<string, string> = {
  'expert.published': 'Expert version published',
  'expert.status_changed': 'Expert status changed',
  'expert.tags_changed': 'Expert tags changed',
  'expert.deleted': 'Expert version deleted',
  'expert.taken_down': 'Expert taken down by the operator',
  'expert.awaiting_approval': 'Expert version awaiting approval',
  'expert.approved': 'Expert version approved',
  'expert.rejected': 'Expert version rejected',
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'api_key.expiring': 'API key expiring (7 days and 1 day before)',
  'connection.created': 'Connection made',
  'connection.refresh_failed': 'Connection refresh failed',
  'connection.disconnected': 'Connection disconnected',
  'member.joined': 'Member joined',
  'member.role_changed': 'Member role changed',
  'member.removed': 'Member removed',
  'subscription.updated': 'Plan or subscription changed',
  'usage.threshold_reached': 'Plan limit 80 % or 100 % used',
  'webhook_endpoint.disabled': 'Webhook endpoint disabled by Cadre',
  'webhook.test': 'Test event',
};

/** The resource an event type is about (its part before the dot): a group heading, and its "all" box. */
const GROUP_WORDS: Record<string, { label: string; all: string }> = {
  expert: { label: 'Experts', all: 'All Expert events' },
  api_key: { label: 'API keys', all: 'All API key events' },
  connection: { label: 'Connections', all: 'All connection events' },
  member: { label: 'Members', all: 'All member events' },
  subscription: { label: 'Billing', all: 'All billing events' },
  usage: { label: 'Usage', all: 'All usage events' },
  webhook_endpoint: { label: 'Webhooks', all: 'All webhook events' },
  webhook: { label: 'Webhooks', all: 'All webhook events' },
};

/** A type an endpoint subscribes to, as the API names them (the same list as EVENT_TYPES). */
export type EventType = components['schemas']['WebhookEndpoint']['eventTypes'][number];

export const eventWords = (type: string) => EVENT_WORDS[type] ?? type;

/**
 * The types an endpoint can subscribe to, grouped by resource in the order the service lists them (a type
 * the service adds appears in its group, or its own, without a change here).
 */
export const EVENT_GROUPS: Array<{ key: string; label: string; all: string; types: EventType[] }> = [];
for (const type of EVENT_TYPES as readonly EventType[]) {
  const key = type.slice(0, type.indexOf('.'));
  let group = EVENT_GROUPS.find((g) => g.key === key);
  if (!group) {
    group = {
      key,
      label: GROUP_WORDS[key]?.label ?? key,
      all: GROUP_WORDS[key]?.all ?? `All ${key} events`,
      types: [],
    };
    EVENT_GROUPS.push(group);
  }
  group.types.push(type);
}
