import { LRUCache } from 'lru-cache';
import semver from 'semver';
import { ApiError } from '../../http/errors.js';
import { type ParsedExpertKey, tryParseExpertKey } from '../registry/index.js';

/** Where Expert keys start: the registry face's path, and the Perstack-compatible face's (docs/perstack.md). */
const EXPERTS_PATHS = ['/registry/experts/', '/api/registry/v1/experts/'];

export interface KeyRequest {
  key: ParsedExpertKey;
  /** The tail ended in `/versions` (the versions listing of the key's name). */
  versions: boolean;
  /** The tail ended in `/delegators` (the versions that delegate to the key's name). */
  delegators?: true;
}

const badKey = (reason: string) => new ApiError('bad_request', reason);

/**
 * Reads the Expert key from a raw request URL under `/registry/experts/` (or the Perstack-compatible
 * `/api/registry/v1/experts/`). Keys contain `@` and, when
 * scoped, `/`; clients send them encoded (`%40acme%2Fwriter`) or not (`@acme/writer`), so the key is
 * taken from the raw path and decoded here rather than from router parameters, which split on `/`.
 * A trailing `/versions` selects the versions listing when what precedes it is a valid key; otherwise
 * the whole tail is the key (so `@acme/versions` is the Expert named `@acme/versions`).
 */
export function keyFromUrl(url: string, allowVersions: boolean): KeyRequest {
  const path = url.split('?', 1)[0] ?? '';
  // Reads repeat the same few keys: parsing (zod, semver) is memoized per raw path, bounded.
  const memo = allowVersions ? parsedPaths.get(path) : undefined;
  if (memo) return memo;
  const parsed = parseKeyPath(path, allowVersions);
  if (allowVersions) parsedPaths.set(path, parsed);
  return parsed;
}

const parsedPaths = new LRUCache<string, KeyRequest>({ max: 10_000 });

function parseKeyPath(path: string, allowVersions: boolean): KeyRequest {
  const base = EXPERTS_PATHS.find((prefix) => path.startsWith(prefix));
  const rawTail = base ? path.slice(base.length) : '';
  let tail: string;
  try {
    tail = decodeURIComponent(rawTail);
  } catch {
    throw badKey('The Expert key is not valid URL encoding');
  }
  if (tail.endsWith('/')) tail = tail.slice(0, -1);
  if (allowVersions && tail.endsWith('/versions')) {
    const candidate = tryParseExpertKey(tail.slice(0, -'/versions'.length));
    if (candidate.ok) return { key: candidate.key, versions: true };
  }
  if (allowVersions && tail.endsWith('/delegators')) {
    const candidate = tryParseExpertKey(tail.slice(0, -'/delegators'.length));
    if (candidate.ok) return { key: candidate.key, versions: false, delegators: true };
  }
  const parsed = tryParseExpertKey(tail);
  if (!parsed.ok) throw badKey(parsed.reason);
  return { key: parsed.key, versions: false };
}

const pad = (value: string, width: number) => value.padStart(width, '0');

/**
 * A string whose byte order (COLLATE "C") is SemVer 2.0 precedence, so `sort=version` runs on an index.
 * Numbers are zero-padded to 20 digits (wider than any integer semver accepts). After the patch
 * number, a release gets `~` and a pre-release ` ` followed by its identifiers, so `1.0.0-x` < `1.0.0`;
 * each identifier starts with ` ` (lower than any identifier character, so a shorter list sorts
 * first), then `0` + padded digits for numeric identifiers or `1` + text for alphanumeric ones
 * (numeric identifiers sort below alphanumeric ones).
 */
export function versionOrder(version: string): string {
  const parsed = semver.parse(version);
  if (!parsed) throw new Error(`not a semantic version: ${version}`);
  const core = [parsed.major, parsed.minor, parsed.patch].map((n) => pad(String(n), 20)).join('.');
  if (parsed.prerelease.length === 0) return `${core}~`;
  const ids = parsed.prerelease.map((id) =>
    typeof id === 'number' || /^\d+$/.test(String(id)) ? ` 0${pad(String(id), 20)}` : ` 1${id}`,
  );
  return `${core}${ids.join('')}`;
}
