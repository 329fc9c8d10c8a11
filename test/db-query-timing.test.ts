import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/database.js';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(() => testDb.drop());

describe('query timing (cadre_db_query_duration_seconds)', () => {
  it('counts each statement outside a transaction once, and a failed one as failed', async () => {
    const seen: Array<{ seconds: number; failed: boolean }> = [];
    testDb.database.observeQueries((seconds, failed) => seen.push({ seconds, failed }));
    const { db } = testDb.database;
    await db.execute(sql`SELECT 1`);
    await db.execute(sql`SELECT 2`);
    await db.execute(sql`SELECT 3`);
    await expect(db.execute(sql`SELECT * FROM no_such_table`)).rejects.toThrow();
    // On PostgreSQL these go through pg's callback form (pool.query), which returns no promise to time.
    expect(seen.map((entry) => entry.failed)).toEqual([false, false, false, true]);
    for (const entry of seen) expect(entry.seconds).toBeGreaterThanOrEqual(0);
  });

  it('counts the statements inside a transaction', async () => {
    const seen: boolean[] = [];
    testDb.database.observeQueries((_seconds, failed) => seen.push(failed));
    await testDb.database.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT 1`);
      await tx.execute(sql`SELECT 2`);
    });
    // PostgreSQL also counts BEGIN and COMMIT; the embedded database runs those itself.
    expect(seen.filter((failed) => !failed).length).toBeGreaterThanOrEqual(2);
  });
});
