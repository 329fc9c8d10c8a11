import { bigint, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn } from '../tenancy/index.js';

/** A payload, as its event type defines it (docs/webhooks.md); never a secret. */
export type EventPayload = Record<string, unknown>;

/** Changes worth telling other systems about: written in the same transaction as the change itself. */
export const events = pgTable('events', {
  id: text('id').primaryKey(),
  /** Insertion order, assigned by the database; the pagination keyset. */
  seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity(),
  organizationId: organizationIdColumn(),
  type: text('type').notNull(),
  actorKind: text('actor_kind', { enum: ['apiKey', 'session', 'admin', 'system', 'scim'] }).notNull(),
  actorUserId: text('actor_user_id'),
  actorApiKeyId: text('actor_api_key_id'),
  resourceType: text('resource_type').notNull(),
  resourceId: text('resource_id').notNull(),
  payload: jsonb('payload').$type<EventPayload>().notNull(),
  /** Set for events a sweep emits (`api_key.expiring`, `usage.threshold_reached`): at most one per key. */
  dedupeKey: text('dedupe_key').unique(),
  createdAt: at('created_at').notNull(),
});
