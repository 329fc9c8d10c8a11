// Cadre's connections to PostgreSQL run without JIT (docs/performance.md, "No JIT"): a batched page's
// estimate over a large table crosses jit_above_cost, and compiling took nearly all of its execution.
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/database.js';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(() => testDb.drop());

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

// Any statement PostgreSQL would compile: with jit_above_cost at 0, every one crosses it.
const EXPLAIN = 'EXPLAIN (ANALYZE, FORMAT JSON) SELECT sum(seq) FROM audit_events';
const compiled = (plan: unknown) => JSON.stringify(plan).includes('"JIT"');

describe('JIT on the connections Cadre opens', () => {
  it('is off on every pooled connection, the first statement of a new one included', async () => {
    const { db } = testDb.database;
    // Several at once, so the pool opens several connections; each answers with its own backend.
    const sessions = await Promise.all(
      Array.from({ length: 4 }, () =>
        db.execute(sql`SELECT current_setting('jit') AS jit, pg_backend_pid() AS pid, pg_sleep(0.05)`),
      ),
    );
    const rows = sessions.flatMap((result) => rowsOf<{ jit: string; pid: number }>(result));
    expect(new Set(rows.map((row) => row.pid)).size).toBeGreaterThan(1);
    expect(rows.map((row) => row.jit)).toEqual(['off', 'off', 'off', 'off']);
  });

  it('compiles nothing through Cadre, where a plain connection to the same server would', async () => {
    const plain = new pg.Client({ connectionString: testDb.url });
    await plain.connect();
    try {
      const { rows } = await plain.query<{ available: boolean }>('SELECT pg_jit_available() AS available');
      // The comparison means something only on a server built with JIT (Debian's is).
      expect(rows[0]!.available).toBe(true);
      await plain.query('BEGIN');
      await plain.query('SET LOCAL jit_above_cost = 0');
      expect(compiled((await plain.query(EXPLAIN)).rows)).toBe(true);
      await plain.query('ROLLBACK');
    } finally {
      await plain.end();
    }
    const plan = await testDb.database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL jit_above_cost = 0`);
      return rowsOf(await tx.execute(sql.raw(EXPLAIN)));
    });
    expect(compiled(plan)).toBe(false);
  });
});
