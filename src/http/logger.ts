import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { loggableDatabaseError } from '../db/errors.js';

export const REDACTED = '[redacted]';

// Query parameters that carry secrets on their way through: OAuth codes and state, tokens of every kind
// (access_token, refresh_token, id_token, csrfToken), keys (api_key, apiKey), client secrets, passwords,
// Authorization sent as a parameter, signatures, sessions. Matched on the normalized name (decoded,
// lower-cased, separators dropped), so `%63ode` is `code` and `api-key`, `API_KEY`, `apiKey` are `apikey`.
const SECRET_NAME = /^(code|state|key)$|token|secret|passw|authoriz|apikey|session|signature|credential/;

// The secrets the service mints to travel in URLs, by their prefix: local checkout (`lcs_`) and portal
// (`lps_`) sessions, invitation links (`inv_`); and API keys (`cadre_` and at least 16 letters or digits),
// which belong in the Authorization header but which a client may put in a URL all the same. Found by what
// they look like, on any route or none: in a path segment or a query value,
// decoded, in any case, at its start or after a separator (`x%2Flcs_…`, `Bearer%20cadre_…`). The hint, on the
// raw URL, spares the common URL the decoding.
const CAPABILITY = /(?:^|[^a-z0-9])(?:(lcs|lps|inv)_|(cadre)_[0-9a-z]{16})/;
const CAPABILITY_HINT =
  /(?:l|%[46]c)(?:c|p|%[46]3|%[57]0)(?:s|%[57]3)(?:_|%5f)|(?:i|%[46]9)(?:n|%[46]e)(?:v|%[57]6)(?:_|%5f)|(?:c|%[46]3)(?:a|%[46]1)(?:d|%[46]4)(?:r|%[57]2)(?:e|%[46]5)(?:_|%5f)/i;

function decoded(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

// A name already in normal form (lower-case letters and digits: `limit`, `cursor`) is the common case.
const NORMAL_NAME = /^[a-z0-9]*$/;
const normalizedName = (raw: string): string =>
  NORMAL_NAME.test(raw) ? raw : decoded(raw).replace(/[-_]/g, '');

/** `lcs_[redacted]` for a path segment or query value holding a capability token, else the part as is. */
function withoutCapability(part: string): string {
  const found = CAPABILITY.exec(decoded(part));
  return found ? `${found[1] ?? found[2]}_${REDACTED}` : part;
}

/**
 * The URL with capability tokens and the values of secret-named query parameters replaced; untouched
 * without a query or a token.
 */
export const redactUrl = (url: string): string => {
  const at = url.indexOf('?');
  const tokens = CAPABILITY_HINT.test(url);
  if (at < 0 && !tokens) return url;
  let path = at < 0 ? url : url.slice(0, at);
  if (tokens) path = path.split('/').map(withoutCapability).join('/');
  if (at < 0) return path;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      if (SECRET_NAME.test(normalizedName(name))) return `${name}=${REDACTED}`;
      return tokens && equals >= 0 ? `${name}=${withoutCapability(pair.slice(equals + 1))}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
};

/** Property names whose values never reach a log line, at any depth (compared lower-cased). */
const SECRET_KEYS = new Set([
  'password',
  'key',
  'apikey',
  'token',
  'admintoken',
  'secret',
  'clientsecret',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'csrftoken',
  'authorization',
  'cookie',
  'set-cookie',
]);
const MAX_DEPTH = 6;

const isPlainContainer = (value: unknown): value is Record<string, unknown> | unknown[] => {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * `value` with every secret-named property replaced by `[redacted]`, looking into nested plain objects and
 * arrays. Copy-on-write: a log object without secrets is returned as is, so the common line costs one scan
 * of its keys (pino's path-based redaction cost ~5 µs per line, more than the rest of a cached request).
 */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const next = depth < MAX_DEPTH && isPlainContainer(item) ? redactSecrets(item, depth + 1) : item;
      if (next !== item) {
        copy ??= value.slice();
        copy[index] = next;
      }
    }
    return (copy ?? value) as T;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const current = record[key];
    let next = current;
    if (SECRET_KEYS.has(key.toLowerCase())) next = current === undefined ? current : REDACTED;
    else if (depth < MAX_DEPTH && isPlainContainer(current)) next = redactSecrets(current, depth + 1);
    if (next !== current) {
      copy ??= { ...record };
      copy[key] = next;
    }
  }
  return (copy ?? value) as T;
}

/** JSON logs with credentials removed wherever they could appear. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      formatters: { log: (object) => redactSecrets(object) },
      serializers: {
        req: (request: IncomingMessage & { id?: string }) => ({
          id: request.id,
          method: request.method,
          url: redactUrl(request.url ?? ''),
          remoteAddress: request.socket?.remoteAddress,
        }),
        // Error objects are not plain: redact what the serializer copies out of them (a client library's
        // error can carry the request's headers). A database error is logged by its SQLSTATE and where, never
        // with the values its statement carried (loggableDatabaseError).
        err: (error: Error) => loggableDatabaseError(error) ?? redactSecrets(pino.stdSerializers.err(error)),
      },
    },
    destination,
  );
}

export interface AccessLine {
  reqId: string;
  method: string;
  url: string;
  status: number;
  ms: number;
}

/**
 * The one-line-per-request access log, written through a pino logger's own destination in its exact format
 * (`{"level":30,"time":…,"pid":…,"hostname":…,"reqId":…,"method":…,"url":…,"status":…,"ms":…,"msg":"request"}`)
 * but formatted here: every field is known and safe once the URL is redacted, so pino's generic walk over
 * the object (a tenth of a cached registry read's work) is skipped. Any other logger gets
 * `info(line, 'request')`.
 */
export function createAccessLog(logger: FastifyBaseLogger): (line: AccessLine) => void {
  const pinoLogger = logger as Partial<Logger> & Record<symbol, unknown>;
  const stream = pinoLogger[pino.symbols.streamSym] as pino.DestinationStream | undefined;
  const chindings = pinoLogger[pino.symbols.chindingsSym];
  if (!stream || typeof chindings !== 'string' || !pinoLogger.isLevelEnabled) {
    return (line) => logger.info({ ...line, url: redactUrl(line.url) }, 'request');
  }
  const isLevelEnabled = pinoLogger.isLevelEnabled.bind(logger);
  return ({ reqId, method, url, status, ms }) => {
    if (!isLevelEnabled('info')) return;
    stream.write(
      // reqId (our own or a caller's matching [A-Za-z0-9._:-]) and method (one of Node's parser's) never
      // need escaping; the URL may.
      `{"level":30,"time":${Date.now()}${chindings},"reqId":"${reqId}","method":"${method}","url":${JSON.stringify(redactUrl(url))},"status":${status},"ms":${ms},"msg":"request"}\n`,
    );
  };
}

/**
 * A pino destination that gathers lines in memory and hands them to `target` in batches: at `maxChars`,
 * every `intervalMs`, and on `flushSync` (exit). Writing each line to a sonic-boom stream cost ~1.7 µs;
 * this costs an array push. Order is kept: every line of the process goes through the same batch.
 */
export function createBatchedDestination(
  target: { write(chunk: string): unknown; flushSync(): void },
  { maxChars = 64 * 1024, intervalMs = 200 } = {},
) {
  let lines: string[] = [];
  let chars = 0;
  const flush = () => {
    if (lines.length === 0) return;
    const chunk = lines.join('');
    lines = [];
    chars = 0;
    target.write(chunk);
  };
  const timer = setInterval(flush, intervalMs);
  timer.unref();
  return {
    write(line: string) {
      lines.push(line);
      chars += line.length;
      if (chars >= maxChars) flush();
    },
    flush,
    flushSync() {
      flush();
      target.flushSync();
    },
  };
}

/**
 * Readable lines for a person at a terminal (pino-pretty): the same JSON lines, redacted as always, parsed
 * and shown as `[12:00:01] INFO (1234): message` with the fields below. Written synchronously, so it can be
 * the batched destination's target and nothing is lost on exit.
 */
export function createPrettyDestination(): { write(chunk: string): unknown; flushSync(): void } {
  const stream = pretty({ sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'hostname' });
  return { write: (chunk) => stream.write(chunk), flushSync: () => undefined };
}

/**
 * Fastify makes a child logger per request (its request id bound) whether or not the request ever logs;
 * that cost as much as a log line. This stands in for it and makes the real child on first use.
 */
class LazyChildLogger {
  #child: FastifyBaseLogger | undefined;
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: pino.Bindings,
    private readonly options: pino.ChildLoggerOptions,
  ) {}
  #real(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }
  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }
  set level(level: string) {
    this.#real().level = level;
  }
  fatal(...args: Parameters<pino.LogFn>) {
    this.#real().fatal(...args);
  }
  error(...args: Parameters<pino.LogFn>) {
    this.#real().error(...args);
  }
  warn(...args: Parameters<pino.LogFn>) {
    this.#real().warn(...args);
  }
  info(...args: Parameters<pino.LogFn>) {
    this.#real().info(...args);
  }
  debug(...args: Parameters<pino.LogFn>) {
    this.#real().debug(...args);
  }
  trace(...args: Parameters<pino.LogFn>) {
    this.#real().trace(...args);
  }
  silent() {}
  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

/** Fastify `childLoggerFactory`: request loggers that cost nothing until a request logs. */
export const lazyChildLogger = (
  parent: FastifyBaseLogger,
  bindings: pino.Bindings,
  options: pino.ChildLoggerOptions,
): FastifyBaseLogger => new LazyChildLogger(parent, bindings, options) satisfies FastifyBaseLogger;
