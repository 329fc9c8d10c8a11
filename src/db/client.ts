import { mkdirSync } from 'node:fs';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { openEmbedded } from './embedded/client.js';
import { shareCheckoutsByTenant } from './fair-pool.js';
import { createStatementNames, nameStatements } from './statement-names.js';

// No relational schema: repositories write their queries with drizzle's query builder, and the database layer
// knows no module's tables (docs/architecture.md, "Layers").
type Schema = Record<string, never>;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Repositories accept either; the service decides whether work runs in a transaction. */
export type Executor = Db | Tx;

type Listener = (payload: string) => void;
type QueryObserver = (seconds: number, failed: boolean) => void;

/**
 * Wraps an object's `query` so each call is timed for the current observer, if any. Both forms count: the
 * promise form (PGlite, drizzle's transactions) and `pg`'s callback form, which `pool.query` uses for
 * every statement outside a transaction and which returns nothing to wait on.
 */
function timeQueries(
  target: { query: (...args: never[]) => unknown },
  observer: () => QueryObserver | undefined,
) {
  const query = target.query.bind(target) as (...args: unknown[]) => unknown;
  (target as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const observe = observer();
    if (!observe) return query(...args);
    const started = performance.now();
    const done = (failed: boolean) => observe((performance.now() - started) / 1000, failed);
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, ...rest: unknown[]) => {
        done(Boolean(error));
        return (callback as (...values: unknown[]) => unknown)(error, ...rest);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise)
      result.then(
        () => done(false),
        () => done(true),
      );
    return result;
  };
}

/** A listener connection went down (notifications may be missed from now on) or came back. */
interface ListenEvents {
  onDown?: () => void;
  onUp?: () => void;
}

/**
 * One database, whichever engine is behind it. `listen` receives NOTIFY payloads from every process that
 * shares the database (PGlite: this process only, which is all there is).
 */
export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /** Statements it runs at once: the pool's size, or 1 (the embedded database is one connection). */
  readonly connections: number;
  /** Runs raw SQL that may hold several statements (migrations). */
  exec(sqlText: string): Promise<void>;
  listen(channel: string, listener: Listener, events?: ListenEvents): Promise<() => Promise<void>>;
  /** How many connections (of every instance sharing the database) listen on `channel` now. */
  listenerCount(channel: string): Promise<number>;
  /** Connections waiting for a free pool slot right now (0 for PGlite). */
  waitingCount(): number;
  /** Whether statements are waiting for their turn at the database right now. */
  contended(): boolean;
  /** The pool's connections: open, idle, and queries waiting for one (PGlite: one connection, no pool). */
  stats(): { total: number; idle: number; waiting: number };
  /** Times every statement from now on (metrics); one observer per database. */
  observeQueries(observer: QueryObserver): void;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  url?: string | undefined;
  /** PGlite data directory; `memory://` or undefined keeps it in memory. */
  dataDir?: string | undefined;
  poolSize?: number;
  /** Called for errors on idle pooled connections so they never crash the process. */
  onError?: (error: Error) => void;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options) : openPglite(options.dataDir);
}

async function openPglite(dataDir?: string): Promise<Database> {
  if (dataDir && !dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const client = await openEmbedded(dataDir && !dataDir.startsWith('memory://') ? dataDir : undefined);
  let observer: QueryObserver | undefined;
  // Drizzle runs statements through `query`, and a transaction's through its own object's `query`.
  timeQueries(client, () => observer);
  const transaction = client.transaction.bind(client);
  client.transaction = (callback) =>
    transaction((tx) => {
      timeQueries(tx, () => observer);
      return callback(tx);
    });
  // drizzle's PGlite driver uses only what EmbeddedClient offers of PGlite (query, transaction).
  const db = drizzlePglite({ client: client as never }) as unknown as Db;
  // PGlite lives in this process (in its own thread): its listeners are the ones registered here.
  const listening = new Map<string, number>();
  return {
    kind: 'pglite',
    db,
    connections: 1,
    exec: client.exec,
    listen: async (channel, listener) => {
      const unsubscribe = await client.listen(channel, listener);
      listening.set(channel, (listening.get(channel) ?? 0) + 1);
      return async () => {
        listening.set(channel, (listening.get(channel) ?? 1) - 1);
        await unsubscribe();
      };
    },
    listenerCount: async (channel) => listening.get(channel) ?? 0,
    waitingCount: () => 0,
    contended: client.contended,
    stats: () => ({ total: 1, idle: 1, waiting: 0 }),
    observeQueries: (next) => {
      observer = next;
    },
    close: () => client.close(),
  };
}

const CONNECT_TIMEOUT_MS = 5_000;

async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
  const poolSize = options.poolSize ?? 10;
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (error) => options.onError?.(error));
  const turns = shareCheckoutsByTenant(pool, poolSize, CONNECT_TIMEOUT_MS);
  // Waiting for a turn is waiting for a connection.
  const waitingCount = () => pool.waitingCount + turns.waitingCount();
  // The pool listens for errors on idle clients only. A checked-out client between two statements of a
  // transaction (no query active) that loses its connection (server shutdown, 57P01) would emit an unhandled
  // 'error' and crash the process; the transaction's next statement fails instead, with this listener.
  let observer: QueryObserver | undefined;
  const nameOf = createStatementNames();
  pool.on('connect', (client) => {
    client.on('error', (error) => options.onError?.(error));
    // Queued before the statement the connection was opened for (docs/performance.md, "No JIT"): the planner's
    // estimate for a batched page over a large table crosses jit_above_cost, and compiling its expressions took
    // 35 ms of a 36 ms execution. A SET rather than a startup option, which PgBouncer refuses by default.
    client.query('SET jit = off').catch((error: Error) => options.onError?.(error));
    // pool.query and transactions both run their statements on a pooled client's `query`.
    nameStatements(client, nameOf);
    timeQueries(client, () => observer);
  });
  const db = drizzlePg({ client: pool }) as unknown as Db;
  const listeners: Array<() => Promise<void>> = [];
  return {
    kind: 'postgres',
    db,
    connections: poolSize,
    exec: async (sqlText) => {
      await pool.query(sqlText);
    },
    listen: async (channel, listener, events) => {
      const handle = await listenWithReconnect(url, channel, listener, events ?? {}, options.onError);
      listeners.push(handle);
      return handle;
    },
    listenerCount: async (channel) => {
      // Listener connections run nothing after LISTEN, so their last statement names the channel.
      const { rows } = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = $1',
        [listenStatement(channel)],
      );
      return rows[0]?.n ?? 0;
    },
    contended: () => turns.waitingCount() > 0,
    waitingCount,
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: waitingCount() }),
    observeQueries: (next) => {
      observer = next;
    },
    close: async () => {
      await Promise.all(listeners.map((stop) => stop()));
      await pool.end();
    },
  };
}

/**
 * A dedicated connection for LISTEN, reconnected when it drops. Between `onDown` and `onUp` notifications
 * may be missed, so subscribers stop trusting their caches for that time.
 */
async function listenWithReconnect(
  url: string,
  channel: string,
  listener: Listener,
  events: ListenEvents,
  onError: ((error: Error) => void) | undefined,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;

  // Each attempt gets a generation; events from older clients (a failed attempt's late 'end') are ignored,
  // so a reconnection never runs twice in parallel and leaks a second LISTEN connection.
  let generation = 0;
  const connect = async (): Promise<void> => {
    const mine = ++generation;
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    const lost = () => {
      if (mine === generation) scheduleReconnect();
    };
    next.on('notification', (message) => {
      if (message.channel === channel) listener(message.payload ?? '');
    });
    next.on('error', (error) => {
      onError?.(error);
      lost();
    });
    next.on('end', lost);
    try {
      await next.connect();
      await next.query(listenStatement(channel));
    } catch (error) {
      // The caller decides what follows a failed attempt; this client's own events no longer count.
      if (mine === generation) generation++;
      await next.end().catch(() => undefined);
      throw error;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
  };

  const scheduleReconnect = () => {
    if (stopped || retryTimer) return;
    client = undefined;
    events.onDown?.();
    retryTimer = setTimeout(async () => {
      retryTimer = undefined;
      try {
        await connect();
        events.onUp?.();
      } catch (error) {
        onError?.(error as Error);
        scheduleReconnect();
      }
    }, 1_000);
    retryTimer.unref();
  };

  await connect();
  return async () => {
    stopped = true;
    if (retryTimer) clearTimeout(retryTimer);
    await client?.end().catch(() => undefined);
  };
}

const listenStatement = (channel: string) => `LISTEN "${channel.replaceAll('"', '""')}"`;
