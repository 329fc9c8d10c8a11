import { bigint, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import type { Grant } from '../auth/grants.js';
import { organizationIdColumn, users } from '../tenancy/tenancy.tables.js';

export const apiKeys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  /** Insertion order, assigned by the database; the pagination keyset. */
  seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity(),
  organizationId: organizationIdColumn(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  name: text('name'),
  start: text('start').notNull(),
  /** SHA-256 hex of the whole secret; the secret itself is never stored. */
  digest: text('digest').notNull().unique(),
  grants: jsonb('grants').$type<Grant>().notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
  expiresAt: at('expires_at'),
  lastUsedAt: at('last_used_at'),
  revokedAt: at('revoked_at'),
});

/** Who did what to which key: written in the same transaction as the change it records. */
export const auditEvents = pgTable('audit_events', {
  id: text('id').primaryKey(),
  organizationId: organizationIdColumn(),
  action: text('action').notNull(),
  actorUserId: text('actor_user_id'),
  actorApiKeyId: text('actor_api_key_id'),
  actorSessionId: text('actor_session_id'),
  actorKind: text('actor_kind', { enum: ['apiKey', 'session', 'admin'] }).notNull(),
  targetType: text('target_type').notNull(),
  targetId: text('target_id').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
});
