import { sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { apiKeys } from '../api-keys/api-keys.tables.js';
import { findPreset } from '../oauth/presets/index.js';
import { agents, environments, organizations, projects, users } from '../tenancy/tenancy.tables.js';
import { webhookEndpoints } from '../webhooks/webhooks.tables.js';
import { auditEvents } from './audit.tables.js';

/** What naming reads of an event. */
type Named = Pick<typeof auditEvents.$inferSelect, 'actorUserId' | 'targetType' | 'targetId' | 'metadata'>;

/**
 * The current names an event's page reads with it, in the same statement (./audit.repo.ts): the actor's and,
 * for a user target, the target's name and email; for any other target, its own row's name, read only from
 * the event's own organization.
 */
export interface ReadNames {
  actorName: string | null;
  actorEmail: string | null;
  targetName: string | null;
  targetEmail: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

/**
 * The name an event's own metadata gives its target: what a deleted project, environment, agent or an
 * invitation was called when it happened, a connection's provider and account, an integration's provider.
 */
function nameFromMetadata(row: Named): string | null {
  const meta = (row.metadata ?? {}) as Record<string, unknown>;
  const to = meta.to as Record<string, unknown> | string | undefined;
  switch (row.targetType) {
    case 'project':
    case 'environment':
    case 'agent':
      return text(meta.name) ?? (typeof to === 'object' ? text(to?.name) : text(to));
    case 'invitation':
      return text(meta.email);
    case 'connection': {
      const preset = text(meta.presetKey);
      const provider = preset ? (findPreset(preset)?.name ?? preset) : null;
      return [provider, text(meta.accountId)].filter(Boolean).join(' ') || null;
    }
    case 'integration': {
      const preset = text(meta.presetKey);
      return preset ? (findPreset(preset)?.name ?? preset) : null;
    }
    case 'expert':
      return row.targetId;
    case 'webhookEndpoint':
      return text(meta.url);
    default:
      return null;
  }
}

const user = (column: 'name' | 'email', id: AnyPgColumn) =>
  sql<string | null>`(SELECT ${users[column]} FROM ${users} WHERE ${users.id} = ${id})`;

/** A named row of the event's own organization: another organization's row of the same id is never read. */
const ownNamed = (table: typeof apiKeys | typeof projects | typeof environments | typeof agents) =>
  sql`(SELECT ${table.name} FROM ${table} WHERE ${table.organizationId} = ${auditEvents.organizationId}
    AND ${table.id} = ${auditEvents.targetId})`;

/** An endpoint by its description, else its URL (the console's way of naming it). */
const endpointName = sql`(SELECT COALESCE(NULLIF(${webhookEndpoints.description}, ''), ${webhookEndpoints.url})
  FROM ${webhookEndpoints} WHERE ${webhookEndpoints.organizationId} = ${auditEvents.organizationId}
  AND ${webhookEndpoints.id} = ${auditEvents.targetId})`;

const organizationName = sql`(SELECT ${organizations.name} FROM ${organizations}
  WHERE ${organizations.id} = ${auditEvents.organizationId} AND ${organizations.id} = ${auditEvents.targetId})`;

/**
 * The expressions of ReadNames, over `audit_events`: scalar subqueries (a primary-key read each), so they
 * run for the rows a page returns only, after its limit.
 */
export const readNames = {
  actorName: user('name', auditEvents.actorUserId).as('actor_name'),
  actorEmail: user('email', auditEvents.actorUserId).as('actor_email'),
  targetName: sql<string | null>`CASE ${auditEvents.targetType}
    WHEN 'user' THEN ${user('name', auditEvents.targetId)}
    WHEN 'apiKey' THEN ${ownNamed(apiKeys)}
    WHEN 'project' THEN ${ownNamed(projects)}
    WHEN 'environment' THEN ${ownNamed(environments)}
    WHEN 'agent' THEN ${ownNamed(agents)}
    WHEN 'organization' THEN ${organizationName}
    WHEN 'subscription' THEN ${organizationName}
    WHEN 'webhookEndpoint' THEN ${endpointName}
  END`.as('target_name'),
  targetEmail: sql<string | null>`CASE WHEN ${auditEvents.targetType} = 'user'
    THEN ${user('email', auditEvents.targetId)} END`.as('target_email'),
};

/** A person by name, or by email when the name is blank; null when no such user is left. */
const person = (name: string | null, email: string | null) => (email === null ? null : name?.trim() || email);

/** Who performed the change, by name. */
export const actorName = (row: Named & ReadNames): string | null =>
  row.actorUserId ? person(row.actorName, row.actorEmail) : null;

/** What the change was made to, by its current name, or the name its metadata recorded when it happened. */
export const targetName = (row: Named & ReadNames): string | null =>
  row.targetType === 'user'
    ? person(row.targetName, row.targetEmail)
    : row.targetName || nameFromMetadata(row);
