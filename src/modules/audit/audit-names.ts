import { and, eq, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { apiKeys } from '../api-keys/api-keys.tables.js';
import { findPreset } from '../oauth/presets/index.js';
import { agents, environments, organizations, projects, users } from '../tenancy/tenancy.tables.js';
import type { AuditEventRow } from './audit.repo.js';

/** What a page of events names: people by name (or email), targets by their current name. */
export interface AuditNames {
  actor(row: AuditEventRow): string | null;
  target(row: AuditEventRow): string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

/**
 * The name an event's own metadata gives its target: what a deleted project, environment, agent or an
 * invitation was called when it happened, a connection's provider and account, an integration's provider.
 */
function nameFromMetadata(row: AuditEventRow): string | null {
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
    default:
      return null;
  }
}

const idsOf = (rows: AuditEventRow[], type: string) => [
  ...new Set(rows.filter((row) => row.targetType === type).map((row) => row.targetId)),
];

const anyOf = (column: AnyPgColumn, name: string) => sql`${column} = ANY(${sql.placeholder(name)}::text[])`;
const inOrganization = (column: AnyPgColumn) => eq(column, sql.placeholder('organizationId'));

/**
 * Resolves the names of one page of events with one prepared statement (a branch per kind of thing named),
 * all kept to this organization: a name is never read from another organization's rows.
 */
export function createAuditNameReader(db: Db) {
  const named = (
    table: typeof apiKeys | typeof projects | typeof environments | typeof agents,
    ids: string,
  ) =>
    db
      .select({
        kind: sql<string>`'named'::text`,
        id: table.id,
        name: sql<string | null>`${table.name}`,
        email: sql<string | null>`NULL::text`,
      })
      .from(table)
      .where(and(inOrganization(table.organizationId), anyOf(table.id, ids)));
  const statement = db
    .select({
      kind: sql<string>`'user'::text`,
      id: users.id,
      name: sql<string | null>`${users.name}`,
      email: sql<string | null>`${users.email}`,
    })
    .from(users)
    .where(anyOf(users.id, 'userIds'))
    .unionAll(named(apiKeys, 'keyIds'))
    .unionAll(named(projects, 'projectIds'))
    .unionAll(named(environments, 'environmentIds'))
    .unionAll(named(agents, 'agentIds'))
    .unionAll(
      db
        .select({
          kind: sql<string>`'named'::text`,
          id: organizations.id,
          name: sql<string | null>`${organizations.name}`,
          email: sql<string | null>`NULL::text`,
        })
        .from(organizations)
        .where(and(inOrganization(organizations.id), sql`${sql.placeholder('withOrganization')}::boolean`)),
    )
    .prepare('audit_names');

  return async (organizationId: string, rows: AuditEventRow[]): Promise<AuditNames> => {
    const userIds = [
      ...new Set([
        ...rows.flatMap((row) => (row.actorUserId ? [row.actorUserId] : [])),
        ...idsOf(rows, 'user'),
      ]),
    ];
    const found = await statement.execute({
      organizationId,
      userIds,
      keyIds: idsOf(rows, 'apiKey'),
      projectIds: idsOf(rows, 'project'),
      environmentIds: idsOf(rows, 'environment'),
      agentIds: idsOf(rows, 'agent'),
      withOrganization: rows.some(
        (row) => row.targetType === 'organization' || row.targetType === 'subscription',
      ),
    });
    const byId = new Map<string, string>();
    const people = new Map<string, string>();
    for (const row of found) {
      if (row.kind === 'user') people.set(row.id, row.name?.trim() || (row.email ?? ''));
      else if (row.name) byId.set(row.id, row.name);
    }
    return {
      actor: (row) => (row.actorUserId ? (people.get(row.actorUserId) ?? null) : null),
      target: (row) => {
        if (row.targetType === 'user') return people.get(row.targetId) ?? null;
        return byId.get(row.targetId) ?? nameFromMetadata(row);
      },
    };
  };
}
