/**
 * `cadre.lock` (docs/registry.md "Lockfile"): an Expert's delegates resolved, transitively, to exact versions
 * with their integrity digests. JSON, not TOML: it is written by a program and read by programs (CI, other
 * tools), every language reads JSON without a dependency, and a sorted, two-space-indented JSON file diffs
 * line by line in review, as package-lock.json does. The output is deterministic: keys sorted at every level,
 * a trailing newline, nothing time-dependent, so locking twice against an unchanged registry writes the same
 * bytes.
 */
import stringify from 'safe-stable-stringify';
import { z } from 'zod';

export const LOCK_FILE_NAME = 'cadre.lock';
export const LOCKFILE_VERSION = 1;

/** Requested delegate key → the exact `name@version` it resolved to. */
const resolvedDelegates = z.record(z.string(), z.string());

const lockedExpert = z.object({
  integrity: z.string().regex(/^sha256-[A-Za-z0-9+/]+=*$/, 'must be sha256-<base64>'),
  delegates: resolvedDelegates,
});

const lockRoot = z.object({
  version: z.string(),
  /** Where the root's own definition came from: the local config file, or the registry (then it is locked too). */
  source: z.enum(['config', 'registry']),
  delegates: resolvedDelegates,
});

export const lockfileSchema = z.object({
  lockfileVersion: z.literal(LOCKFILE_VERSION, {
    error: (issue) =>
      `lockfileVersion ${JSON.stringify(issue.input)} is not supported: this cadre reads version ${LOCKFILE_VERSION}`,
  }),
  /** Root Experts by name. */
  roots: z.record(z.string(), lockRoot),
  /** Every registry version reached, by exact key. */
  experts: z.record(z.string(), lockedExpert),
});

export type Lockfile = z.infer<typeof lockfileSchema>;
export type LockedExpert = z.infer<typeof lockedExpert>;

/** The file's text: keys sorted at every level, two-space indent, a trailing newline. */
export function formatLockfile(lock: Lockfile): string {
  return `${stringify(lock, null, 2)}\n`;
}

/** Parses a lock file's text, or answers why it cannot be used. */
export function parseLockfile(text: string): { ok: true; lock: Lockfile } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})` };
  }
  const parsed = lockfileSchema.safeParse(json);
  if (parsed.success) return { ok: true, lock: parsed.data };
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return { ok: false, reason: `${where}${issue.message}` };
}
