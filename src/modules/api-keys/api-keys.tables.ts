import { bigint, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import type { Grant } from '../auth/index.js';
import { organizationIdColumn, users } from '../tenancy/index.js';

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
