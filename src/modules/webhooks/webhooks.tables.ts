import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn } from '../tenancy/tenancy.tables.js';

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
  /** `whsec_…`, encrypted with the key ring (token-vault.ts), bound to the endpoint's id. */
  secretCiphertext: text('secret_ciphertext').notNull(),
  previousSecretCiphertext: text('previous_secret_ciphertext'),
  previousSecretExpiresAt: at('previous_secret_expires_at'),
  createdAt: at('created_at').notNull(),
  updatedAt: at('updated_at').notNull(),
});
