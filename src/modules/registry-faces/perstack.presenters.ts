import { ApiError } from '../../http/errors.js';
import { type ExpertRecord, PERSTACK_RUNTIME_VERSION, runsOnV1_0 } from '../registry/index.js';
import { presentPerstackSkills } from './perstack.skills.js';
import {
  type DigestRecord,
  type Listed,
  presentDigest,
  presentExpert,
  type RegistryView,
} from './registry.presenters.js';
import type { ExpertDigest, RegistryExpert } from './registry.schemas.js';

/**
 * The Perstack-compatible face's answer for an Expert that needs a newer runtime than v1.0, which that face's
 * clients cannot describe (docs/perstack.md "Runtime versions"): the registry face serves it as stored.
 */
export function needsNewerRuntime(key: string, minRuntimeVersion: string): ApiError {
  return new ApiError(
    'not_found',
    `Expert ${key} needs runtime ${minRuntimeVersion} or newer; this API serves Experts that run on runtime ` +
      `${PERSTACK_RUNTIME_VERSION} only. Read it at /registry/experts/${key}`,
  );
}

/** A digest as that face presents it: `minRuntimeVersion` is `v1.0`, the only value its clients accept. */
function toPerstackDigest(presented: ExpertDigest) {
  if (!runsOnV1_0(presented.minRuntimeVersion)) {
    throw needsNewerRuntime(presented.key, presented.minRuntimeVersion);
  }
  return { ...presented, minRuntimeVersion: PERSTACK_RUNTIME_VERSION };
}

/**
 * A record as that face presents it: `minRuntimeVersion` as `toPerstackDigest` says, and the skills in the
 * shape Perstack's runtime reads (perstack.skills.ts). `integrity` stays the stored record's.
 */
export function toPerstack(presented: RegistryExpert, baseSkillNames: readonly string[]) {
  if (!runsOnV1_0(presented.minRuntimeVersion)) {
    throw needsNewerRuntime(presented.key, presented.minRuntimeVersion);
  }
  return {
    ...presented,
    minRuntimeVersion: PERSTACK_RUNTIME_VERSION,
    skills: presentPerstackSkills(presented.skills, baseSkillNames),
  };
}

const isRecord = (row: Listed<DigestRecord> | Listed<ExpertRecord>): row is Listed<ExpertRecord> =>
  'instruction' in row;

/**
 * Whole records in lists and versions listings, Experts needing a newer runtime left out of both; a record's
 * base skill named by the names the registry accepts for it (`baseSkillNames`).
 */
export function perstackView(baseSkillNames: readonly string[]): RegistryView {
  return {
    name: 'perstack:',
    list: { records: true, runtimeV1_0Only: true },
    expert: (record) => toPerstack(presentExpert(record), baseSkillNames),
    listItem: (row) => {
      // `list.records` makes every row a whole record; a digest here would be a bug in the list query.
      if (!isRecord(row)) throw new Error('the Perstack-compatible face lists whole records');
      return toPerstack(presentExpert(row), baseSkillNames);
    },
    versionItem: (row) => (row.runsOnV1_0 ? toPerstackDigest(presentDigest(row)) : undefined),
  };
}
