import semver from 'semver';

interface Candidate {
  version: string;
  status: string;
  publishedAt: Date;
}

/**
 * Orders two versions as the MCP Registry does: by semver when both are semantic versions, otherwise the one
 * published later is newer (non-semantic versions sort by time).
 */
function newer<T extends Candidate>(a: T, b: T): T {
  if (semver.valid(a.version) && semver.valid(b.version)) return semver.gt(b.version, a.version) ? b : a;
  return b.publishedAt > a.publishedAt ? b : a;
}

/**
 * The version that is `latest`: the newest that is not deleted; when every version is deleted, the newest
 * of them (so a mirror reading `version=latest` with deleted ones sees the server go).
 */
export function latestOf<T extends Candidate>(versions: T[]): T | undefined {
  const live = versions.filter((version) => version.status !== 'deleted');
  const pool = live.length > 0 ? live : versions;
  return pool.reduce<T | undefined>((best, version) => (best ? newer(best, version) : version), undefined);
}
