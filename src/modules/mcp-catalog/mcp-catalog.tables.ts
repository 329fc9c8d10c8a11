import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn } from '../tenancy/index.js';

// Kept in step with src/db/migrations/1040_mcp_catalog.sql, 1240_mcp_catalog_search_index.sql and
// 1241_mcp_catalog_approvals.sql (docs/mcp-registry.md).

export const CATALOG_ACCESS = ['public', 'key', 'link'] as const;
export type CatalogAccess = (typeof CATALOG_ACCESS)[number];

export const SERVER_STATUSES = ['active', 'deprecated', 'deleted'] as const;
export type ServerStatus = (typeof SERVER_STATUSES)[number];

/** A version that widened access waits (`pending`) until another owner or admin decides; null: it never waited. */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const mcpCatalogs = pgTable('mcp_catalogs', {
  organizationId: organizationIdColumn().primaryKey(),
  access: text('access', { enum: CATALOG_ACCESS }).notNull(),
  /** SHA-256 (hex) of the catalog link's secret; null until a link is made. */
  linkSecretHash: text('link_secret_hash').unique(),
  updatedAt: at('updated_at').notNull(),
  updatedByUserId: text('updated_by_user_id'),
});

export const mcpServerVersions = pgTable(
  'mcp_server_versions',
  {
    id: text('id').primaryKey(),
    organizationId: organizationIdColumn(),
    name: text('name').notNull(),
    version: text('version').notNull(),
    /** The server.json as published. */
    server: jsonb('server').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: SERVER_STATUSES }).notNull(),
    statusMessage: text('status_message'),
    statusChangedAt: at('status_changed_at').notNull(),
    isLatest: boolean('is_latest').notNull(),
    publishedAt: at('published_at').notNull(),
    updatedAt: at('updated_at').notNull(),
    publishedByUserId: text('published_by_user_id').notNull(),
    approval: text('approval', { enum: APPROVAL_STATUSES }),
    /** Why the version waited, in words (widening.ts). */
    approvalReasons: jsonb('approval_reasons').$type<string[]>(),
    /** The version it was compared with: the latest listed one when it was published. */
    approvalPreviousVersion: text('approval_previous_version'),
    approvalDecidedByUserId: text('approval_decided_by_user_id'),
    approvalDecidedAt: at('approval_decided_at'),
  },
  (table) => [
    unique().on(table.organizationId, table.name, table.version),
    uniqueIndex('mcp_server_versions_latest').on(table.organizationId, table.name).where(sql`is_latest`),
    index('mcp_server_versions_updated').on(table.organizationId, table.updatedAt),
    // The search (name ILIKE '%text%') reads a trigram index, never every name of the catalog.
    index('mcp_server_versions_name_trgm')
      .using('gin', table.name.op('gin_trgm_ops'))
      .with({ fastupdate: false }),
    index('mcp_server_versions_waiting')
      .on(table.organizationId, table.publishedAt)
      .where(sql`approval = 'pending'`),
  ],
);

export type ServerVersionRow = typeof mcpServerVersions.$inferSelect;
