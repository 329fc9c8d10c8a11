import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { organizations, users } from '../tenancy/tenancy.tables.js';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const consoleSessions = pgTable('console_sessions', {
  id: text('id').primaryKey(),
  /** SHA-256 hex of the cookie's token; the token itself is never stored. */
  tokenDigest: text('token_digest').notNull().unique(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  organizationId: text('organization_id')
    .notNull()
    .references(() => organizations.id),
  createdAt: at('created_at').notNull(),
  expiresAt: at('expires_at').notNull(),
  revokedAt: at('revoked_at'),
});
