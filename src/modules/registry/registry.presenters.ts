import { LATEST_TAG } from './expert-definition.js';
import type { ExpertDigest, ExpertVersion, RegistryExpert } from './registry.schemas.js';
import type { ExpertRow } from './registry.tables.js';

/** An Expert row with its owning organization's public fields. */
export interface ExpertRecord extends ExpertRow {
  ownerSlug: string;
  ownerCreatedAt: Date;
}

/** `latest` first, then the custom tags in the order they were set. */
const tagsOf = (row: Pick<ExpertRow, 'tags' | 'isLatest'>): string[] =>
  row.isLatest ? [LATEST_TAG, ...row.tags] : [...row.tags];

/** The fields a digest shows (list queries read only these). */
export type DigestRecord = Pick<
  ExpertRecord,
  | 'id'
  | 'name'
  | 'version'
  | 'minRuntimeVersion'
  | 'description'
  | 'tags'
  | 'isLatest'
  | 'organizationId'
  | 'createdAt'
  | 'updatedAt'
  | 'ownerSlug'
  | 'ownerCreatedAt'
>;

export function presentDigest(row: DigestRecord): ExpertDigest {
  return {
    type: 'expertDigest',
    id: row.id,
    key: `${row.name}@${row.version}`,
    name: row.name,
    version: row.version,
    minRuntimeVersion: row.minRuntimeVersion,
    description: row.description,
    tags: tagsOf(row),
    owner: {
      name: row.ownerSlug,
      organizationId: row.organizationId,
      createdAt: row.ownerCreatedAt.toISOString(),
    },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function presentExpert(row: ExpertRecord): RegistryExpert {
  return {
    ...presentDigest(row),
    type: 'registryExpert',
    status: row.status,
    instruction: row.instruction,
    skills: row.skills,
    delegates: row.delegates,
    ...(row.unavailableDelegates?.length ? { unavailableDelegates: row.unavailableDelegates } : {}),
  };
}

export function presentVersion(
  row: Pick<ExpertRow, 'id' | 'name' | 'version' | 'tags' | 'isLatest'>,
): ExpertVersion {
  return {
    type: 'expertDigest',
    id: row.id,
    key: `${row.name}@${row.version}`,
    name: row.name,
    version: row.version,
    tags: tagsOf(row),
  };
}
