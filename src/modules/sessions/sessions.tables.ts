import { pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn, users } from '../tenancy/index.js';

export const consoleSessions = pgTable('console_sessions', {
  id: text('id').primaryKey(),
  /** SHA-256 hex of the cookie's token; the token itself is never stored. */
  tokenDigest: text('token_digest').notNull().unique(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  organizationId: organizationIdColumn(),
  createdAt: at('created_at').notNull(),
  expiresAt: at('expires_at').notNull(),
  revokedAt: at('revoked_at'),
});
