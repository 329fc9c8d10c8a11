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
