import { pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';

const createdAt = () => at('created_at').notNull().defaultNow();

export const organizations = pgTable('organizations', {
  id: text('id').primaryKey(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  accountType: text('account_type', { enum: ['personal', 'personalPlus', 'team'] }).notNull(),
  createdAt: createdAt(),
});

/** The owning organization of a row: every tenant table has one. */
export const organizationIdColumn = () =>
  text('organization_id')
    .notNull()
    .references(() => organizations.id);

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  name: text('name'),
  passwordHash: text('password_hash'),
  /**
   * When the email was proven (migration 0980): the account was made or chosen by the operator, or accepted
   * the link mailed to it. Null: an invitation's copied link made it; it is reused for nothing more until proven.
   */
  emailVerifiedAt: at('email_verified_at'),
  createdAt: createdAt(),
});

export const memberships = pgTable(
  'memberships',
  {
    organizationId: organizationIdColumn(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    role: text('role', { enum: ['owner', 'admin', 'member'] }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.userId] })],
);

export const projects = pgTable('projects', {
  id: text('id').primaryKey(),
  organizationId: organizationIdColumn(),
  slug: text('slug').notNull(),
  name: text('name').notNull(),
  createdAt: createdAt(),
});

export const environments = pgTable('environments', {
  id: text('id').primaryKey(),
  organizationId: organizationIdColumn(),
  projectId: text('project_id')
    .notNull()
    .references(() => projects.id),
  name: text('name').notNull(),
  createdAt: createdAt(),
});

export const agents = pgTable('agents', {
  id: text('id').primaryKey(),
  organizationId: organizationIdColumn(),
  projectId: text('project_id')
    .notNull()
    .references(() => projects.id),
  name: text('name').notNull(),
  createdAt: createdAt(),
});

// The records as read, for the tenancy services and presenters.
export type Organization = typeof organizations.$inferSelect;
export type User = typeof users.$inferSelect;
export type Project = typeof projects.$inferSelect;
export type Environment = typeof environments.$inferSelect;
export type Agent = typeof agents.$inferSelect;
