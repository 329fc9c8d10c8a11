import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { currentTenant } from '../../lib/tenant-context.js';
import type { Field, QueryResult, Reply, Request, RowMode, WireError, WorkerData } from './protocol.js';

type Parsers = Record<number, (value: string, type: number) => unknown>;
interface QueryOptions {
  rowMode?: RowMode;
  parsers?: Parsers;
}
type Listener = (payload: string) => void;
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/** What drizzle's PGlite driver uses of a transaction. */
export interface EmbeddedTransaction {
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<Row>>;
  exec(sql: string): Promise<void>;
}

/** What drizzle's PGlite driver (and the service) use of PGlite, with PGlite itself in a worker thread. */
export interface EmbeddedClient extends EmbeddedTransaction {
  transaction<T>(callback: (tx: EmbeddedTransaction) => Promise<T>): Promise<T>;
  listen(channel: string, listener: Listener): Promise<() => Promise<void>>;
  /** More than one request is with the worker: statements wait for their turn. */
  contended(): boolean;
  close(): Promise<void>;
}

// SQLSTATE connection_failure: readiness and the error handler read it as "the database is unavailable".
const stopped = (reason: string) =>
  Object.assign(new Error(`the embedded database stopped: ${reason}`), { code: '08006' });

const fromWire = ({ message, properties }: WireError) => Object.assign(new Error(message), properties);

/**
 * The worker runs from the built file (dist/…/worker.js) or, when the service runs from source (tests,
 * `npm run dev`), from worker.ts: tsx's hooks do not reach a worker thread by themselves on Node 20, so a
 * two-line bootstrap registers them there first.
 */
function spawn(data: WorkerData): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./worker.js', import.meta.url), { workerData: data });
  // tsx's package exports map 'tsx/esm/api' to this file for `import` (require.resolve would give the CommonJS one).
  const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsx = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const worker = new URL('./worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(worker)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data });
}

/** Applies the caller's parsers, on this side, to the columns the worker left as text. */
function parse(result: QueryResult, rowMode: RowMode, parsers: Parsers | undefined): QueryResult {
  if (!parsers) return result;
  const columns = result.fields.flatMap((field: Field, index) => {
    const parser = parsers[field.dataTypeID];
    return parser ? [{ key: rowMode === 'array' ? index : field.name, parser, type: field.dataTypeID }] : [];
  });
  if (columns.length === 0) return result;
  for (const row of result.rows as Array<Record<string | number, unknown>>) {
    for (const { key, parser, type } of columns) {
      const value = row[key];
      if (typeof value === 'string') row[key] = parser(value, type);
    }
  }
  return result;
}

/** Opens PGlite in its own thread: `dataDir` holds its files, undefined keeps it in memory. */
export async function openEmbedded(dataDir: string | undefined): Promise<EmbeddedClient> {
  const worker = spawn({ dataDir });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const listeners = new Map<number, Listener>();
  let nextId = 1;
  let nextSubscription = 1;
  let failure: Error | undefined;

  // The worker keeps the process alive only while a request waits for it, as a socket would.
  const settle = (id: number) => {
    const entry = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    return entry;
  };
  // Request 0 is the start-up: the worker answers it once PGlite is open.
  const ready = deferred<unknown>();
  pending.set(0, ready);

  worker.on('message', (message: Reply) => {
    if (message.kind === 'notification') return listeners.get(message.subscription)?.(message.payload);
    const entry = settle(message.id);
    if (message.ok) entry?.resolve(message.value);
    else entry?.reject(fromWire(message.error));
  });
  const fail = (error: Error) => {
    failure ??= error;
    for (const id of [...pending.keys()]) settle(id)?.reject(failure);
  };
  worker.on('error', (error) => fail(stopped(error.message)));
  worker.on('exit', (code) => fail(stopped(`its thread exited (${code})`)));

  const call = <T>(request: WithoutId<Request>): Promise<T> => {
    if (failure) return Promise.reject(failure);
    const id = nextId++;
    const { promise, resolve, reject } = deferred<unknown>();
    pending.set(id, { resolve, reject });
    if (pending.size === 1) worker.ref();
    try {
      worker.postMessage({ ...request, id } as Request);
    } catch (error) {
      // A parameter that cannot cross to the thread (structured clone): this statement fails, nothing waits.
      settle(id);
      return Promise.reject(error);
    }
    return promise as Promise<T>;
  };

  const query =
    (tx: number | undefined): EmbeddedTransaction['query'] =>
    async <Row>(sql: string, params: unknown[] = [], options: QueryOptions = {}) => {
      const rowMode = options.rowMode ?? 'object';
      const rawTypes = Object.keys(options.parsers ?? {}).map(Number);
      const tenant = currentTenant() ?? '';
      const result = await call<QueryResult>({ op: 'query', sql, params, rowMode, rawTypes, tx, tenant });
      return parse(result, rowMode, options.parsers) as QueryResult<Row>;
    };
  const exec = (tx: number | undefined) => async (sql: string) => {
    await call<void>({ op: 'exec', sql, tx, tenant: currentTenant() ?? '' });
  };

  await ready.promise;
  return {
    query: query(undefined),
    exec: exec(undefined),
    transaction: async (callback) => {
      const tx = await call<number>({ op: 'begin', tenant: currentTenant() ?? '' });
      let result: Awaited<ReturnType<typeof callback>>;
      try {
        result = await callback({ query: query(tx), exec: exec(tx) });
      } catch (error) {
        await call<void>({ op: 'end', tx, commit: false }).catch(() => undefined);
        throw error;
      }
      await call<void>({ op: 'end', tx, commit: true });
      return result;
    },
    contended: () => pending.size > 1,
    listen: async (channel, listener) => {
      const subscription = nextSubscription++;
      listeners.set(subscription, listener);
      await call<void>({ op: 'listen', channel, subscription });
      return async () => {
        listeners.delete(subscription);
        if (!failure) await call<void>({ op: 'unlisten', subscription });
      };
    },
    close: async () => {
      if (failure) return;
      await call<void>({ op: 'close' });
      failure = stopped('it was closed');
      await worker.terminate();
    },
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}
