import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
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

/**
 * Resolves the names of one page of events in a handful of queries (one per kind of thing named), all kept
 * to this organization: a name is never read from another organization's rows.
 */
export async function resolveAuditNames(
  db: Executor,
  organizationId: string,
  rows: AuditEventRow[],
): Promise<AuditNames> {
  const userIds = [
    ...new Set([
      ...rows.flatMap((row) => (row.actorUserId ? [row.actorUserId] : [])),
      ...idsOf(rows, 'user'),
    ]),
  ];
  const byId = new Map<string, string>();
  const people = new Map<string, string>();
  const keep = (list: Array<{ id: string; name: string | null }>) => {
    for (const item of list) if (item.name) byId.set(item.id, item.name);
  };
  const keyIds = idsOf(rows, 'apiKey');
  const projectIds = idsOf(rows, 'project');
  const environmentIds = idsOf(rows, 'environment');
  const agentIds = idsOf(rows, 'agent');
  await Promise.all([
    userIds.length &&
      db
        .select({ id: users.id, name: users.name, email: users.email })
        .from(users)
        .where(inArray(users.id, userIds))
        .then((list) => {
          for (const user of list) people.set(user.id, user.name?.trim() || user.email);
        }),
    keyIds.length &&
      db
        .select({ id: apiKeys.id, name: apiKeys.name })
        .from(apiKeys)
        .where(and(eq(apiKeys.organizationId, organizationId), inArray(apiKeys.id, keyIds)))
        .then(keep),
    projectIds.length &&
      db
        .select({ id: projects.id, name: projects.name })
        .from(projects)
        .where(and(eq(projects.organizationId, organizationId), inArray(projects.id, projectIds)))
        .then(keep),
    environmentIds.length &&
      db
        .select({ id: environments.id, name: environments.name })
        .from(environments)
        .where(and(eq(environments.organizationId, organizationId), inArray(environments.id, environmentIds)))
        .then(keep),
    agentIds.length &&
      db
        .select({ id: agents.id, name: agents.name })
        .from(agents)
        .where(and(eq(agents.organizationId, organizationId), inArray(agents.id, agentIds)))
        .then(keep),
    rows.some((row) => row.targetType === 'organization' || row.targetType === 'subscription') &&
      db
        .select({ id: organizations.id, name: organizations.name })
        .from(organizations)
        .where(eq(organizations.id, organizationId))
        .then(keep),
  ]);
  return {
    actor: (row) => (row.actorUserId ? (people.get(row.actorUserId) ?? null) : null),
    target: (row) => {
      if (row.targetType === 'user') return people.get(row.targetId) ?? null;
      return byId.get(row.targetId) ?? nameFromMetadata(row);
    },
  };
}
