import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { apiKeys } from '../api-keys/api-keys.tables.js';
import { invitations } from '../members/invitations.tables.js';
import { connections } from '../oauth/oauth.tables.js';
import { findPreset } from '../oauth/presets/index.js';
import { registryExperts } from '../registry/registry.tables.js';
import { environments, projects, users } from '../tenancy/tenancy.tables.js';

/** What an id in an event's details stands for. */
export type ReferenceType =
  | 'user'
  | 'apiKey'
  | 'expert'
  | 'project'
  | 'environment'
  | 'invitation'
  | 'connection';

/** An id an event's details carry, with the name a person reads it by (null when it no longer exists). */
export interface AuditReference {
  field: string;
  type: ReferenceType;
  id: string;
  name: string | null;
}

/**
 * The metadata fields that hold the id of something a person knows by name (docs/organization-api.md,
 * "Actions"), each a string or a list of strings. Other ids in details (an approval's, an integration
 * version's) are bookkeeping a person does not read.
 */
const REFERENCE_FIELDS: Readonly<Record<string, ReferenceType>> = {
  invitedByUserId: 'user',
  invitationId: 'invitation',
  expertId: 'expert',
  projectId: 'project',
  environmentId: 'environment',
  revokedApiKeyIds: 'apiKey',
  connections: 'connection',
};

const idsOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((id): id is string => typeof id === 'string' && id !== '');

/** The references of one event's details, in field order, names not yet read. */
function referencesOf(metadata: Record<string, unknown> | null): Array<Omit<AuditReference, 'name'>> {
  if (!metadata) return [];
  return Object.entries(REFERENCE_FIELDS).flatMap(([field, type]) =>
    Object.hasOwn(metadata, field) ? idsOf(metadata[field]).map((id) => ({ field, type, id })) : [],
  );
}

type NameQuery = (
  organizationId: string,
  ids: string[],
) => Promise<Array<{ id: string; name: string | null }>>;

/**
 * Names by id, each read only from the event's own organization (another organization's row of the same id
 * is never named); a person by their name, else their email. One statement per kind of reference on a page.
 */
function nameQueries(db: Database['db']): Record<ReferenceType, NameQuery> {
  return {
    // A person referenced by an event of this organization (its inviter, say) may have left it since: the
    // event was written by Cadre, so the id is one this organization's trail holds, not one a client sent.
    user: (_organizationId, ids) =>
      db
        .select({
          id: users.id,
          name: sql<string | null>`COALESCE(NULLIF(TRIM(${users.name}), ''), ${users.email})`,
        })
        .from(users)
        .where(inArray(users.id, ids)),
    apiKey: (organizationId, ids) =>
      db
        .select({ id: apiKeys.id, name: apiKeys.name })
        .from(apiKeys)
        .where(and(eq(apiKeys.organizationId, organizationId), inArray(apiKeys.id, ids))),
    expert: (organizationId, ids) =>
      db
        .select({
          id: registryExperts.id,
          name: sql<string>`${registryExperts.name} || '@' || ${registryExperts.version}`,
        })
        .from(registryExperts)
        .where(and(eq(registryExperts.organizationId, organizationId), inArray(registryExperts.id, ids))),
    project: (organizationId, ids) =>
      db
        .select({ id: projects.id, name: projects.name })
        .from(projects)
        .where(and(eq(projects.organizationId, organizationId), inArray(projects.id, ids))),
    environment: (organizationId, ids) =>
      db
        .select({ id: environments.id, name: environments.name })
        .from(environments)
        .where(and(eq(environments.organizationId, organizationId), inArray(environments.id, ids))),
    invitation: (organizationId, ids) =>
      db
        .select({ id: invitations.id, name: invitations.email })
        .from(invitations)
        .where(and(eq(invitations.organizationId, organizationId), inArray(invitations.id, ids))),
    connection: async (organizationId, ids) =>
      (
        await db
          .select({ id: connections.id, presetKey: connections.presetKey, accountId: connections.accountId })
          .from(connections)
          .where(and(eq(connections.organizationId, organizationId), inArray(connections.id, ids)))
      ).map((row) => ({
        id: row.id,
        name: `${findPreset(row.presetKey)?.name ?? row.presetKey} ${row.accountId}`,
      })),
  };
}

/**
 * Reads the names of every reference on a page of one organization's events, and returns each event's
 * references in the page's order.
 */
export function createReferenceNames(database: Pick<Database, 'db'>) {
  const queries = nameQueries(database.db);
  return async (
    organizationId: string,
    page: ReadonlyArray<{ metadata: Record<string, unknown> | null }>,
  ): Promise<AuditReference[][]> => {
    const unnamed = page.map((event) => referencesOf(event.metadata));
    const wanted = new Map<ReferenceType, Set<string>>();
    for (const reference of unnamed.flat()) {
      const ids = wanted.get(reference.type) ?? new Set<string>();
      ids.add(reference.id);
      wanted.set(reference.type, ids);
    }
    const names = new Map<string, string | null>();
    await Promise.all(
      [...wanted].map(async ([type, ids]) => {
        for (const row of await queries[type](organizationId, [...ids]))
          names.set(`${type}:${row.id}`, row.name);
      }),
    );
    return unnamed.map((references) =>
      references.map((reference) => ({
        ...reference,
        name: names.get(`${reference.type}:${reference.id}`) ?? null,
      })),
    );
  };
}
