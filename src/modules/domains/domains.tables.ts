import { integer, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn } from '../tenancy/index.js';

/**
 * An organization's claim on an email domain (migration 1120, docs/domains.md). `verifiedAt` is set while the
 * proof holds; one organization at most holds a domain verified (a partial unique index).
 */
export const organizationDomains = pgTable(
  'organization_domains',
  {
    id: text('id').primaryKey(),
    organizationId: organizationIdColumn(),
    domain: text('domain').notNull(),
    challenge: text('challenge').notNull(),
    method: text('method', { enum: ['dns', 'http'] }),
    verifiedAt: at('verified_at'),
    lastCheckedAt: at('last_checked_at'),
    failures: integer('failures').notNull().default(0),
    lastError: text('last_error'),
    lapsedAt: at('lapsed_at'),
    createdAt: at('created_at').notNull(),
  },
  (table) => [unique().on(table.organizationId, table.domain)],
);
