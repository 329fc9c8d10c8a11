import type { AuditRecordNames } from './audit-names.js';

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

/**
 * Reads the names of every reference on a page of one organization's events, and returns each event's
 * references in the page's order. Each kind's names are read by the module that owns its records
 * (RecordNames.ofIds, ./audit-names.ts), only from the event's own organization (another organization's row of
 * the same id is never named): one statement per kind of reference on a page. A kind nobody names has none.
 */
export function createReferenceNames(names: AuditRecordNames) {
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
    const read = new Map<string, string | null>();
    await Promise.all(
      [...wanted].map(async ([type, ids]) => {
        for (const row of (await names[type]?.ofIds?.(organizationId, [...ids])) ?? [])
          read.set(`${type}:${row.id}`, row.name);
      }),
    );
    return unnamed.map((references) =>
      references.map((reference) => ({
        ...reference,
        name: read.get(`${reference.type}:${reference.id}`) ?? null,
      })),
    );
  };
}
