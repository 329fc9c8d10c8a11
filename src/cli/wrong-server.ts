import { CliError, EXIT_USER } from './errors.js';

/**
 * Answers that show the CLI is not talking to Cadre's base URL: a page (an HTML site, the console's own
 * pages), another JSON API, or Cadre itself reached through one of its own route prefixes
 * (`--url http://host:3000/registry`). Each becomes one line saying what is wrong and what to pass, never
 * the raw body. Plain-text error bodies (a proxy's "502 Bad Gateway") stay the server's error.
 */

/** Cadre's own top-level paths: a base URL ending in one names a part of the API, not Cadre. */
const CADRE_PATHS = [
  '/registry',
  '/api',
  '/admin',
  '/auth',
  '/console',
  '/oauth',
  '/healthz',
  '/readyz',
  '/metrics',
  '/openapi.json',
  '/docs',
];

const WHAT_TO_PASS = "pass Cadre's base URL with --url or CADRE_URL, e.g. http://127.0.0.1:3000";

/** The base URL without a path, when `url` ends in one of Cadre's own paths (checked before any request). */
export function cadrePathIn(url: URL): string | undefined {
  const path = url.pathname.replace(/\/+$/, '');
  const own = CADRE_PATHS.find((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  return own && path;
}

export function pathInBaseUrl(shown: string, source: string, url: URL, path: string): CliError {
  return new CliError(
    `${shown} (from ${source}) is not Cadre's base URL: ${path} is a path of Cadre's API; pass --url ${url.origin} (or set CADRE_URL to it)`,
    EXIT_USER,
  );
}

/** Cadre's error bodies: management `{ error: { code, message } }`, registry `{ code, error, reason }`. */
function cadreError(json: unknown): { message: string } | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  const body = json as { error?: unknown; reason?: unknown };
  if (body.error && typeof body.error === 'object') {
    const inner = body.error as { code?: unknown; message?: unknown };
    if (typeof inner.code === 'string' && typeof inner.message === 'string')
      return { message: inner.message };
  }
  if (typeof body.error === 'string' && typeof body.reason === 'string') return { message: body.reason };
  return undefined;
}

export interface Answer {
  base: string;
  method: string;
  path: string;
  status: number;
  contentType: string;
  text: string;
  json: unknown;
}

/** The one-line error for an answer that is not Cadre's API at this base URL, or undefined. */
export function wrongServer(answer: Answer): CliError | undefined {
  const asked = `${answer.method} ${answer.path.split('?')[0]}`;
  const fail = (what: string) =>
    new CliError(`${answer.base} is not Cadre's API: ${what} to ${asked}; ${WHAT_TO_PASS}`, EXIT_USER);
  if (/\bhtml\b/i.test(answer.contentType) || /^\s*<(!doctype|html|head|body|\?xml)/i.test(answer.text))
    return fail(`it answered ${answer.status} with an HTML page`);
  if (answer.json === undefined) return undefined;
  if (answer.status >= 200 && answer.status < 300) return undefined;
  const error = cadreError(answer.json);
  if (!error) return fail(`it answered ${answer.status} with JSON that is not Cadre's`);
  // Cadre itself, with a path in the base URL that its routes do not start with.
  if (
    answer.status === 404 &&
    error.message.startsWith('No route for ') &&
    new URL(answer.base).pathname !== '/'
  )
    return new CliError(
      `${answer.base} is not Cadre's base URL: Cadre answered that it has no route for ${asked}; pass --url ${new URL(answer.base).origin} (or set CADRE_URL to it)`,
      EXIT_USER,
    );
  return undefined;
}

/** A 2xx answer that lacks what Cadre's route answers (another JSON API at that URL). */
export function foreignJson(base: string, asked: string, isJson = true): CliError {
  return new CliError(
    `${base} is not Cadre's API: it answered ${asked} with ${isJson ? "JSON that is not Cadre's" : 'a body that is not JSON'}; ${WHAT_TO_PASS}`,
    EXIT_USER,
  );
}
