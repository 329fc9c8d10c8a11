import { jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn } from '../tenancy/index.js';
import type { MappedRole, RoleMappingRule } from './role-mappings.schemas.js';

/** Migration 1100: the owner's group → role rules, one row per organization that wrote some. */
export const ssoRoleMappings = pgTable('sso_role_mappings', {
  organizationId: organizationIdColumn().primaryKey(),
  defaultRole: text('default_role', { enum: ['admin', 'member'] })
    .$type<MappedRole>()
    .notNull(),
  rules: jsonb('rules').$type<RoleMappingRule[]>().notNull(),
  updatedAt: at('updated_at').notNull(),
  updatedByUserId: text('updated_by_user_id'),
});
