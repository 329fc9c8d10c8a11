import { pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn } from '../tenancy/index.js';

/** States already used by a callback: a replay finds its hash here. Rows past `expiresAt` can be pruned. */
export const oauthStates = pgTable('oauth_states', {
  stateHash: text('state_hash').primaryKey(),
  organizationId: organizationIdColumn(),
  consumedAt: at('consumed_at').notNull(),
  expiresAt: at('expires_at').notNull(),
});
