import { pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn, users } from '../tenancy/index.js';

/** Invitations to join an organization (migration 0910): the link's token is kept only as its SHA-256. */
export const invitations = pgTable('invitations', {
  id: text('id').primaryKey(),
  organizationId: organizationIdColumn(),
  email: text('email').notNull(),
  role: text('role', { enum: ['admin', 'member'] }).notNull(),
  /** SHA-256 hex of the link's token; the token itself is shown once and never stored. */
  tokenDigest: text('token_digest').notNull().unique(),
  /** SHA-256 hex of the mailed link's own token (migration 0980): only the mailbox has it, so it proves the email. */
  mailTokenDigest: text('mail_token_digest').unique(),
  invitedByUserId: text('invited_by_user_id').references(() => users.id),
  createdAt: at('created_at').notNull(),
  expiresAt: at('expires_at').notNull(),
  acceptedAt: at('accepted_at'),
  acceptedByUserId: text('accepted_by_user_id').references(() => users.id),
  revokedAt: at('revoked_at'),
});
