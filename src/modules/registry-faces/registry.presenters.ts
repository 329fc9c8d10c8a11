import { type ExpertRecord, type ExpertRow, LATEST_TAG } from '../registry/index.js';
import { integrityOf } from '../supply-chain/index.js';
import type { ExpertDigest, ExpertVersion, RegistryExpert } from './registry.schemas.js';

/**
 * A record whose times may already be the answer's text: list pages read them formatted by the database
 * (registry.repo.ts, listTimes), reads by key as Dates.
 */
export type Listed<T extends { createdAt: Date; updatedAt: Date; ownerCreatedAt: Date }> = Omit<
  T,
  'createdAt' | 'updatedAt' | 'ownerCreatedAt'
> & { createdAt: Date | string; updatedAt: Date | string; ownerCreatedAt: Date | string };

const iso = (at: Date | string) => (typeof at === 'string' ? at : at.toISOString());

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

export function presentDigest(row: Listed<DigestRecord>): ExpertDigest {
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
      createdAt: iso(row.ownerCreatedAt),
    },
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export function presentExpert(row: Listed<ExpertRecord>): RegistryExpert {
  return {
    ...presentDigest(row),
    type: 'registryExpert',
    status: row.status,
    instruction: row.instruction,
    skills: row.skills,
    delegates: row.delegates,
    // Stored at publish; a row the start-up backfill has not reached yet gets the same value computed here.
    integrity: row.integrity ?? integrityOf(row),
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

/** A row of a name's versions listing: a digest, and whether it runs on runtime v1.0. */
export type VersionRow = DigestRecord & Pick<ExpertRecord, 'runsOnV1_0'>;

/**
 * How a face presents the registry's records: the specification's `/registry` face, or the
 * Perstack-compatible one (perstack.presenters.ts). The service reads once and caches each face's answers
 * apart (`name` namespaces them); a face may decline a record it cannot describe.
 */
export interface RegistryView {
  /** Namespaces this face's cached answers ('' for the registry face). */
  readonly name: string;
  /** Lists read whole records (not digests), and only Experts that run on runtime v1.0. */
  readonly list: { records: boolean; runtimeV1_0Only: boolean };
  /** The `expert` of a read by key; throws an ApiError when this face cannot present it. */
  expert(record: ExpertRecord): unknown;
  /** A list item, from a digest row or (when `list.records`) a whole record. */
  listItem(row: Listed<DigestRecord> | Listed<ExpertRecord>): unknown;
  /** An item of a name's versions listing, or undefined when this face leaves it out. */
  versionItem(row: VersionRow): unknown;
}

/** The specification's registry face: digests in lists, short version items, records exactly as stored. */
export const registryView: RegistryView = {
  name: '',
  list: { records: false, runtimeV1_0Only: false },
  expert: presentExpert,
  listItem: presentDigest,
  versionItem: presentVersion,
};
