import { boolean, integer, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn, organizations, users } from '../tenancy/index.js';

/** The organization's SCIM bearer token (migration 1121): its SHA-256 only, and the start shown in lists. */
export const scimTokens = pgTable('scim_tokens', {
  organizationId: text('organization_id')
    .primaryKey()
    .references(() => organizations.id),
  tokenDigest: text('token_digest').notNull().unique(),
  tokenStart: text('token_start').notNull(),
  createdByUserId: text('created_by_user_id').references(() => users.id),
  createdAt: at('created_at').notNull(),
});

/** A provisioned person, linked to the account it made or adopted (docs/scim.md). */
export const scimUsers = pgTable(
  'scim_users',
  {
    id: text('id').primaryKey(),
    organizationId: organizationIdColumn(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    userName: text('user_name').notNull(),
    email: text('email').notNull(),
    externalId: text('external_id'),
    displayName: text('display_name'),
    givenName: text('given_name'),
    familyName: text('family_name'),
    active: boolean('active').notNull(),
    version: integer('version').notNull().default(1),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
  },
  (table) => [unique().on(table.organizationId, table.userId)],
);

export const scimGroups = pgTable(
  'scim_groups',
  {
    id: text('id').primaryKey(),
    organizationId: organizationIdColumn(),
    displayName: text('display_name').notNull(),
    externalId: text('external_id'),
    version: integer('version').notNull().default(1),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
  },
  (table) => [unique().on(table.organizationId, table.displayName)],
);

export const scimGroupMembers = pgTable(
  'scim_group_members',
  {
    groupId: text('group_id')
      .notNull()
      .references(() => scimGroups.id, { onDelete: 'cascade' }),
    scimUserId: text('scim_user_id')
      .notNull()
      .references(() => scimUsers.id, { onDelete: 'cascade' }),
  },
  (table) => [primaryKey({ columns: [table.groupId, table.scimUserId] })],
);
