import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';

export interface TestDatabase {
  database: Database;
  /** Set on PostgreSQL: other processes (a second Cadre instance) can open the same database. */
  url: string | undefined;
  /** Opens another handle on the same database (PostgreSQL only). */
  reopen(): Promise<Database>;
  drop(): Promise<void>;
}

/**
 * PGlite in memory by default; with DATABASE_URL (CI's second run), a fresh database on that server for
 * each test file, dropped afterwards, so files run in parallel without seeing each other's rows.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const database = await openDatabase({ dataDir: 'memory://' });
    await migrate(database);
    return {
      database,
      url: undefined,
      reopen: () => Promise.reject(new Error('PGlite in memory cannot be opened twice')),
      drop: () => database.close(),
    };
  }
  const name = `cadre_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const open = () => openDatabase({ url: url.toString(), poolSize: 10 });
  const database = await open();
  await migrate(database);
  return {
    database,
    url: url.toString(),
    reopen: open,
    drop: async () => {
      // Dropping first ends every backend of this database, so a pooled client still busy cannot hold close().
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
      await database.close();
    },
  };
}

export const onPostgres = (): boolean => Boolean(process.env.DATABASE_URL);
