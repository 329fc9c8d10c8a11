import type { Database } from '../client.js';

interface Logger {
  warn(message: string): void;
}

const WARN_EVERY_MS = 60 * 60_000;

export const EMBEDDED_CONTENTION_WARNING =
  'organizations are waiting on each other for the embedded database, which runs one transaction at a time: for an instance shared by organizations, set DATABASE_URL to a PostgreSQL server (docs/operations.md, "Fairness between tenants")';

/**
 * The embedded database runs one statement (or transaction) at a time, so organizations that use it together
 * wait on each other's transactions. The operator hears of it when it starts happening, at most once an hour:
 * an instance shared by organizations belongs on PostgreSQL. Undefined on PostgreSQL, where nothing is said.
 */
export function warnOfEmbeddedContention(
  database: Pick<Database, 'kind'>,
  log: () => Logger,
  now: () => number = Date.now,
): (() => void) | undefined {
  if (database.kind !== 'pglite') return undefined;
  let warnedAt = Number.NEGATIVE_INFINITY;
  return () => {
    if (now() - warnedAt < WARN_EVERY_MS) return;
    warnedAt = now();
    log().warn(EMBEDDED_CONTENTION_WARNING);
  };
}
