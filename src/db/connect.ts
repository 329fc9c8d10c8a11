import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from './client.js';

/** Start-up waits for the database (a server that is still booting) with capped exponential backoff. */
export async function connectWithBackoff(
  open: () => Promise<Database>,
  log: Logger,
  { attempts = 10, firstDelayMs = 250, maxDelayMs = 5_000 } = {},
): Promise<Database> {
  let delay = firstDelayMs;
  for (let attempt = 1; ; attempt++) {
    let database: Database | undefined;
    try {
      database = await open();
      await database.db.execute(sql`SELECT 1`);
      return database;
    } catch (error) {
      await database?.close().catch(() => undefined);
      if (attempt >= attempts) throw error;
      log.warn({ err: error, attempt, retryInMs: delay }, 'database not reachable yet');
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, maxDelayMs);
    }
  }
}
