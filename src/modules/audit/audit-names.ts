import { sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { batchedReads } from '../../db/batched-reads.js';
import type { Database } from '../../db/client.js';
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

const anyOf = (column: AnyPgColumn, name: string) => sql`${column} = ANY(${sql.placeholder(name)}::text[])`;
/** (organization, id) pairs given as two arrays: a name is read only from its own organization's row. */
const pairsOf = (organizationColumn: AnyPgColumn, idColumn: AnyPgColumn, kind: string) =>
  sql`(${organizationColumn}, ${idColumn}) IN (SELECT * FROM unnest(${sql.placeholder(`${kind}Organizations`)}::text[], ${sql.placeholder(`${kind}Ids`)}::text[]))`;

/** What one page of events asks names for. */
interface NameRequest {
  organizationId: string;
  rows: AuditEventRow[];
}

const NAMED_KINDS = ['apiKey', 'project', 'environment', 'agent'] as const;

/**
 * Resolves the names of pages of events with one prepared statement (a branch per kind of thing named), for
 * every page asked for in one event-loop turn: the (organization, id) pairs of every page together, so a
 * name is never read from another organization's rows, and each page's names come from its organization.
 */
export function createAuditNameReader(database: Pick<Database, 'db' | 'connections'>) {
  const { db } = database;
  const named = (
    table: typeof apiKeys | typeof projects | typeof environments | typeof agents,
    kind: string,
  ) =>
    db
      .select({
        kind: sql<string>`'named'::text`,
        organizationId: sql<string | null>`${table.organizationId}`,
        id: table.id,
        name: sql<string | null>`${table.name}`,
        email: sql<string | null>`NULL::text`,
      })
      .from(table)
      .where(pairsOf(table.organizationId, table.id, kind));
  const statement = db
    .select({
      kind: sql<string>`'user'::text`,
      organizationId: sql<string | null>`NULL::text`,
      id: users.id,
      name: sql<string | null>`${users.name}`,
      email: sql<string | null>`${users.email}`,
    })
    .from(users)
    .where(anyOf(users.id, 'userIds'))
    .unionAll(named(apiKeys, 'apiKey'))
    .unionAll(named(projects, 'project'))
    .unionAll(named(environments, 'environment'))
    .unionAll(named(agents, 'agent'))
    .unionAll(
      db
        .select({
          kind: sql<string>`'named'::text`,
          organizationId: sql<string | null>`${organizations.id}`,
          id: organizations.id,
          name: sql<string | null>`${organizations.name}`,
          email: sql<string | null>`NULL::text`,
        })
        .from(organizations)
        .where(anyOf(organizations.id, 'organizationIds')),
    )
    .prepare('audit_names');

  const loader = batchedReads(async (requests: readonly NameRequest[]) => {
    const userIds = new Set<string>();
    const pairs = Object.fromEntries(NAMED_KINDS.map((kind) => [kind, new Set<string>()]));
    const organizationIds = new Set<string>();
    for (const { organizationId, rows } of requests) {
      for (const row of rows) {
        if (row.actorUserId) userIds.add(row.actorUserId);
        if (row.targetType === 'user') userIds.add(row.targetId);
        if (row.targetType === 'organization' || row.targetType === 'subscription')
          organizationIds.add(organizationId);
        // A NUL never occurs in an id: the pair's two halves split back apart exactly.
        pairs[row.targetType]?.add(`${organizationId}\u0000${row.targetId}`);
      }
    }
    const values: Record<string, string[]> = {
      userIds: [...userIds],
      organizationIds: [...organizationIds],
    };
    for (const kind of NAMED_KINDS) {
      const split = [...pairs[kind]!].map((pair) => pair.split('\u0000') as [string, string]);
      values[`${kind}Organizations`] = split.map(([organizationId]) => organizationId);
      values[`${kind}Ids`] = split.map(([, id]) => id);
    }
    const found = await statement.execute(values);
    return requests.map(() => found);
  }, database.connections);

  return async (organizationId: string, rows: AuditEventRow[]): Promise<AuditNames> => {
    const found = await loader.load({ organizationId, rows });
    const byId = new Map<string, string>();
    const people = new Map<string, string>();
    for (const row of found) {
      if (row.kind === 'user') people.set(row.id, row.name?.trim() || (row.email ?? ''));
      else if (row.organizationId === organizationId && row.name) byId.set(row.id, row.name);
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
