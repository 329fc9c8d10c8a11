import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn, organizations } from '../tenancy/tenancy.tables.js';
import type { Skills } from './expert-definition.js';

// Kept in step with src/db/migrations/0100_registry.sql and 0550_registry_takedowns.sql (names, versions and
// tags use COLLATE "C" there).

/** A delegate naming a taken-down version, as shown on the delegating Expert (docs/registry.md). */
export interface UnavailableDelegate {
  key: string;
  reason: string;
}

export const registryNames = pgTable('registry_names', {
  name: text('name').primaryKey(),
  organizationId: organizationIdColumn(),
  createdAt: at('created_at').notNull().defaultNow(),
});

export const registryVersions = pgTable(
  'registry_versions',
  {
    name: text('name')
      .notNull()
      .references(() => registryNames.name),
    version: text('version').notNull(),
    expertId: text('expert_id').notNull(),
    publishedAt: at('published_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.name, table.version] })],
);

export const registryExperts = pgTable(
  'registry_experts',
  {
    id: text('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity().unique(),
    name: text('name')
      .notNull()
      .references(() => registryNames.name),
    version: text('version').notNull(),
    versionOrder: text('version_order').notNull(),
    organizationId: organizationIdColumn(),
    minRuntimeVersion: text('min_runtime_version').notNull(),
    description: text('description').notNull(),
    instruction: text('instruction').notNull(),
    skills: json('skills').$type<Skills>().notNull(),
    delegates: text('delegates').array().notNull().default(sql`'{}'`),
    tags: text('tags').array().notNull().default(sql`'{}'`),
    isLatest: boolean('is_latest').notNull().default(false),
    status: text('status', { enum: ['available', 'deprecated', 'disabled'] })
      .notNull()
      .default('available'),
    unavailableDelegates: jsonb('unavailable_delegates').$type<UnavailableDelegate[]>(),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [
    unique().on(table.name, table.version),
    uniqueIndex('registry_experts_one_latest').on(table.name).where(sql`is_latest`),
    index('registry_latest_created').on(table.createdAt, table.id).where(sql`is_latest`),
    index('registry_latest_updated').on(table.updatedAt, table.id).where(sql`is_latest`),
    index('registry_latest_version').on(table.versionOrder, table.id).where(sql`is_latest`),
    index('registry_latest_org_created')
      .on(table.organizationId, table.createdAt, table.id)
      .where(sql`is_latest`),
    index('registry_experts_delegates').using('gin', table.delegates),
  ],
);

export const registryTags = pgTable(
  'registry_tags',
  {
    name: text('name')
      .notNull()
      .references(() => registryNames.name),
    tag: text('tag').notNull(),
    expertId: text('expert_id')
      .notNull()
      .references(() => registryExperts.id, { onDelete: 'cascade' }),
  },
  (table) => [
    primaryKey({ columns: [table.name, table.tag] }),
    index('registry_tags_expert').on(table.expertId),
  ],
);

export const registryTakedowns = pgTable(
  'registry_takedowns',
  {
    name: text('name').notNull(),
    version: text('version').notNull(),
    expertId: text('expert_id').notNull(),
    organizationId: organizationIdColumn(),
    reason: text('reason').notNull(),
    takenDownAt: at('taken_down_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.name, table.version] })],
);

export const registryCounts = pgTable('registry_counts', {
  organizationId: text('organization_id')
    .primaryKey()
    .references(() => organizations.id),
  latest: integer('latest').notNull(),
});

export type ExpertRow = typeof registryExperts.$inferSelect;
