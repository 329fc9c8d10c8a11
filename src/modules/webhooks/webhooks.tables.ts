import { bigint, boolean, index, integer, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { events } from '../events/index.js';
import { organizationIdColumn } from '../tenancy/index.js';

/** Where an organization wants its events delivered (docs/webhooks.md). */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  organizationId: organizationIdColumn(),
  url: text('url').notNull(),
  description: text('description').notNull().default(''),
  eventTypes: text('event_types').array().notNull(),
  enabled: boolean('enabled').notNull().default(true),
  /** Why Cadre disabled it (410 Gone, three days of failures); null when a member did or it is enabled. */
  disabledReason: text('disabled_reason'),
  /** `whsec_…`, encrypted with the key ring (src/lib/key-ring.ts), bound to the endpoint's id. */
  secretCiphertext: text('secret_ciphertext').notNull(),
  previousSecretCiphertext: text('previous_secret_ciphertext'),
  previousSecretExpiresAt: at('previous_secret_expires_at'),
  /** Since when every attempt to it has failed; null while its last attempt succeeded. */
  failingSince: at('failing_since'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
});

/** The outbox: one row per (event, endpoint), written in the event's transaction (deliveries.repo.ts). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    /** The `webhook-id` header: the same on every retry and resend. */
    id: text('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity(),
    organizationId: organizationIdColumn(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] })
      .notNull()
      .default('pending'),
    /** Attempts since it was queued or last resent: its place in the retry schedule. */
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: at('next_attempt_at').notNull(),
    /** A worker's lease: until then no other worker takes it; past it, it is due again. */
    claimedUntil: at('claimed_until'),
    claimToken: text('claim_token'),
    createdAt: at('created_at').notNull(),
    completedAt: at('completed_at'),
  },
  (table) => [
    unique().on(table.eventId, table.endpointId),
    index('webhook_deliveries_endpoint_seq').on(table.endpointId, table.seq),
  ],
);

/** Each attempt of a delivery, for the delivery log. */
export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptedAt: at('attempted_at').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    latencyMs: integer('latency_ms').notNull(),
    /** The answer's first bytes (at most 1 KiB), as text. */
    responseExcerpt: text('response_excerpt'),
  },
  (table) => [index('webhook_delivery_attempts_delivery').on(table.deliveryId, table.attemptedAt)],
);
