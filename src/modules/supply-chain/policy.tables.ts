import { boolean, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { registryExperts } from '../registry/index.js';
import { organizationIdColumn } from '../tenancy/index.js';

// Kept in step with src/db/migrations/0950_registry_publish_policies.sql (docs/registry.md "Publish policies").

export const registryPublishPolicies = pgTable('registry_publish_policies', {
  organizationId: organizationIdColumn().primaryKey(),
  /** null: any command. */
  allowedCommands: text('allowed_commands').array(),
  requirePinnedVersions: boolean('require_pinned_versions').notNull().default(false),
  /** null: any host. */
  allowedSseHosts: text('allowed_sse_hosts').array(),
  approvalRequiredForWidening: boolean('approval_required_for_widening').notNull().default(false),
  /** Migration 1041: skills must come from the organization's MCP catalog. */
  skillsFromCatalog: boolean('skills_from_catalog').notNull().default(false),
  updatedAt: at('updated_at').notNull(),
  updatedByUserId: text('updated_by_user_id'),
});

export const registryApprovals = pgTable(
  'registry_approvals',
  {
    id: text('id').primaryKey(),
    organizationId: organizationIdColumn(),
    expertId: text('expert_id')
      .notNull()
      .unique()
      .references(() => registryExperts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    version: text('version').notNull(),
    /** The version holding `latest` when this one was published (what it was compared with). */
    previousVersion: text('previous_version'),
    /** The diff's widening reasons (version-diff.ts). */
    reasons: jsonb('reasons').$type<string[]>().notNull(),
    status: text('status', { enum: ['pending', 'approved', 'rejected'] }).notNull(),
    requestedByUserId: text('requested_by_user_id').notNull(),
    decidedByUserId: text('decided_by_user_id'),
    decidedAt: at('decided_at'),
    createdAt: at('created_at').notNull(),
  },
  (table) => [
    index('registry_approvals_org_status').on(table.organizationId, table.status, table.createdAt, table.id),
  ],
);

export type ApprovalRow = typeof registryApprovals.$inferSelect;
