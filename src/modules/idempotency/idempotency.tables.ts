import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn, users } from '../tenancy/index.js';

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    organizationId: organizationIdColumn(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    endpoint: text('endpoint').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    state: text('state', { enum: ['running', 'done'] }).notNull(),
    responseStatus: integer('response_status'),
    /** The answer's JSON exactly as it was written (migration 0981): a replay sends these bytes. */
    responseText: text('response_text'),
    lockedAt: at('locked_at').notNull(),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.userId, table.endpoint, table.key] })],
);
