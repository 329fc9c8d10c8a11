import { bigint, boolean, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn, organizations, users } from '../tenancy/index.js';

export const SUBSCRIPTION_STATUSES = [
  'none',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'incomplete',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const billingSubscriptions = pgTable('billing_subscriptions', {
  organizationId: text('organization_id')
    .primaryKey()
    .references(() => organizations.id),
  /** A billing provider's id (providers/index.ts). */
  provider: text('provider').notNull(),
  planKey: text('plan_key').notNull(),
  status: text('status', { enum: SUBSCRIPTION_STATUSES }).notNull(),
  currentPeriodStart: at('current_period_start'),
  currentPeriodEnd: at('current_period_end'),
  cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
  providerCustomerId: text('provider_customer_id'),
  providerSubscriptionId: text('provider_subscription_id'),
  /** When the provider produced the stored state; events older than this are ignored. */
  providerStateAt: at('provider_state_at'),
  updatedAt: at('updated_at').notNull(),
});

export const billingLocalSessions = pgTable('billing_local_sessions', {
  id: text('id').primaryKey(),
  kind: text('kind', { enum: ['checkout', 'portal'] }).notNull(),
  organizationId: organizationIdColumn(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  providerIdempotencyKey: text('provider_idempotency_key').notNull().unique(),
  planKey: text('plan_key'),
  successUrl: text('success_url'),
  cancelUrl: text('cancel_url'),
  returnUrl: text('return_url'),
  status: text('status', { enum: ['open', 'completed'] }).notNull(),
  createdAt: at('created_at').notNull(),
  expiresAt: at('expires_at').notNull(),
  completedAt: at('completed_at'),
});

export const billingWebhookEvents = pgTable(
  'billing_webhook_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    receivedAt: at('received_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.provider, table.eventId] })],
);

export const usageApiRequests = pgTable(
  'usage_api_requests',
  {
    organizationId: organizationIdColumn(),
    hour: at('hour').notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.hour] })],
);

/** An operator's limit for one counter of one organization, in place of its plan's (docs/billing.md). */
export const organizationLimitOverrides = pgTable(
  'organization_limit_overrides',
  {
    organizationId: organizationIdColumn(),
    counter: text('counter', { enum: ['apiRequests', 'expertVersions', 'apiKeys', 'connections'] }).notNull(),
    value: integer('value').notNull(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.counter] })],
);
