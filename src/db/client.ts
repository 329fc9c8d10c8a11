import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import * as schema from './schema.js';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Repositories accept either; the service decides whether work runs in a transaction. */
export type Executor = Db | Tx;

export type Listener = (payload: string) => void;

/**
 * One database, whichever engine is behind it. `listen` receives NOTIFY payloads from every process that
 * shares the database (PGlite: this process only, which is all there is).
 */
export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /** Runs raw SQL that may hold several statements (migrations). */
  exec(sqlText: string): Promise<void>;
  listen(channel: string, listener: Listener, onReconnect?: () => void): Promise<() => Promise<void>>;
  /** Connections waiting for a free pool slot right now (0 for PGlite). */
  waitingCount(): number;
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
  const client = await PGlite.create(dataDir && !dataDir.startsWith('memory://') ? { dataDir } : {});
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    exec: async (sqlText) => {
      await client.exec(sqlText);
    },
    listen: async (channel, listener) => {
      const unsubscribe = await client.listen(channel, listener);
      return async () => unsubscribe();
    },
    waitingCount: () => 0,
    close: () => client.close(),
  };
}

async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (error) => options.onError?.(error));
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  const listeners: Array<() => Promise<void>> = [];
  return {
    kind: 'postgres',
    db,
    exec: async (sqlText) => {
      await pool.query(sqlText);
    },
    listen: async (channel, listener, onReconnect) => {
      const handle = await listenWithReconnect(url, channel, listener, onReconnect, options.onError);
      listeners.push(handle);
      return handle;
    },
    waitingCount: () => pool.waitingCount,
    close: async () => {
      await Promise.all(listeners.map((stop) => stop()));
      await pool.end();
    },
  };
}

/**
 * A dedicated connection for LISTEN. When it drops, notifications may have been missed, so `onReconnect`
 * tells the subscriber to drop whatever it cached before listening resumes.
 */
async function listenWithReconnect(
  url: string,
  channel: string,
  listener: Listener,
  onReconnect: (() => void) | undefined,
  onError: ((error: Error) => void) | undefined,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  const quoted = `"${channel.replaceAll('"', '""')}"`;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    next.on('notification', (message) => {
      if (message.channel === channel) listener(message.payload ?? '');
    });
    next.on('error', (error) => {
      onError?.(error);
      scheduleReconnect();
    });
    next.on('end', () => scheduleReconnect());
    await next.connect();
    await next.query(`LISTEN ${quoted}`);
    client = next;
  };

  const scheduleReconnect = () => {
    if (stopped || retryTimer) return;
    client = undefined;
    onReconnect?.();
    retryTimer = setTimeout(async () => {
      retryTimer = undefined;
      try {
        await connect();
        onReconnect?.();
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
