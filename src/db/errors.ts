/** PostgreSQL SQLSTATE of an error thrown by pg, PGlite or drizzle (which wraps the driver's error). */
export function sqlState(error: unknown): string | undefined {
  for (
    let current = error;
    current && typeof current === 'object';
    current = (current as { cause?: unknown }).cause
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === '23505';

// Connection-level failures: the database is down, restarting, or out of reach. Not a bug in the request.
const UNAVAILABLE_STATES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
]);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|Cannot use a pool after calling end|the database system is (starting up|shutting down)/i;

/** Is this error (or one it wraps) the database being unreachable rather than a failed statement? */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    current && typeof current === 'object' && depth < 8;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_STATES.has(code) || UNAVAILABLE_ERRNOS.has(code)))
      return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    if (current instanceof AggregateError && current.errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}

// The storage is full: PostgreSQL's disk_full (53100, "could not extend file … No space left on device"), or
// the embedded database's file system answering ENOSPC. Not the request's fault, and it passes when an
// operator frees space: 503 with Retry-After (docs/operations.md, "Failure behaviour").
const STORAGE_FULL_MESSAGES = /could not extend file|No space left on device/i;

/** Is this error (or one it wraps) the database's storage being full? */
export function isStorageFull(error: unknown): boolean {
  for (
    let current = error, depth = 0;
    current && typeof current === 'object' && depth < 8;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (code === '53100' || code === 'ENOSPC') return true;
    if (typeof message === 'string' && STORAGE_FULL_MESSAGES.test(message)) return true;
  }
  return false;
}

/** The error in a chain that carries `key` (drizzle wraps the driver's error as its `cause`). */
function inChain<T>(error: unknown, pick: (value: Record<string, unknown>) => T | undefined): T | undefined {
  for (
    let current = error, depth = 0;
    current && typeof current === 'object' && depth < 8;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const found = pick(current as Record<string, unknown>);
    if (found !== undefined) return found;
  }
  return undefined;
}

const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);

/**
 * What of a database error may be logged: its SQLSTATE, the constraint, table and column it names, the routine
 * that raised it and the statement's text (placeholders, never values). Never its parameters, and never the
 * driver's message or detail, which quote the values they refused (`invalid input syntax for type uuid:
 * "…"`, `Key (email)=(…) already exists`); drizzle's wrapper writes every parameter into its message. Undefined
 * for an error that is not the database's.
 */
export function loggableDatabaseError(error: unknown): Record<string, unknown> | undefined {
  const query = inChain(error, (e) => (Array.isArray(e.params) ? text(e.query) : undefined));
  // A five-letter code alone is no SQLSTATE (nodemailer's EAUTH): a driver's error also says its severity.
  const fromDriver = inChain(error, (e) => (typeof e.severity === 'string' ? true : undefined));
  if (query === undefined && !fromDriver) return undefined;
  const state = sqlState(error);
  const driver = inChain(error, (e) => (e.code === state ? e : undefined));
  // A connection failure has no SQLSTATE but a system error code (ECONNREFUSED), which says what happened.
  const errno = state ? undefined : inChain(error, (e) => (typeof e.code === 'string' ? e.code : undefined));
  const fields = Object.fromEntries(
    (['constraint', 'table', 'column', 'dataType', 'routine', 'severity'] as const)
      .map((name) => [name, text(driver?.[name])])
      .filter(([, value]) => value !== undefined),
  );
  const where = fields.constraint
    ? ` (constraint ${fields.constraint})`
    : fields.table
      ? ` (table ${fields.table})`
      : '';
  // The stack's frames only: the lines before them repeat the message (drizzle's spans several lines).
  const stack = (error as { stack?: unknown } | undefined)?.stack;
  const frames = typeof stack === 'string' ? stack.split('\n').filter((line) => /^\s+at /.test(line)) : [];
  return {
    type: 'DatabaseError',
    message: `database error ${state ?? errno ?? '(no SQLSTATE)'}${where}`,
    ...(state ? { sqlState: state } : {}),
    ...(errno ? { code: errno } : {}),
    ...fields,
    ...(query ? { query: query.slice(0, 500) } : {}),
    ...(frames.length > 0 ? { stack: frames.join('\n') } : {}),
  };
}
