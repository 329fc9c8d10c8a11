import { bigint, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { at } from '../../db/columns.js';
import { organizationIdColumn } from '../tenancy/index.js';

/** Details of a change, as its action defines them (docs/organization-api.md, "Audit events"). */
export type AuditMetadata = Record<string, unknown>;

/** Who did what to which resource: written in the same transaction as the change it records. */
export const auditEvents = pgTable('audit_events', {
  id: text('id').primaryKey(),
  /** Insertion order, assigned by the database; the pagination keyset. */
  seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity(),
  organizationId: organizationIdColumn(),
  action: text('action').notNull(),
  actorUserId: text('actor_user_id'),
  actorApiKeyId: text('actor_api_key_id'),
  actorSessionId: text('actor_session_id'),
  actorKind: text('actor_kind', { enum: ['apiKey', 'session', 'admin', 'system', 'scim'] }).notNull(),
  targetType: text('target_type').notNull(),
  targetId: text('target_id').notNull(),
  metadata: jsonb('metadata').$type<AuditMetadata>(),
  createdAt: at('created_at').notNull().defaultNow(),
});
