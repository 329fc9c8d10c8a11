import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../src/db/errors.js';
import { shareCheckoutsByTenant } from '../src/db/fair-pool.js';
import { runAsTenant, startAttributing, stopAttributing } from '../src/lib/tenant-context.js';

// The pool's checkouts take turns between tenants (docs/operations.md, "Fairness between tenants"). A real
// PostgreSQL server (DATABASE_URL): pg-pool's own queue is what is being replaced.

let pool: pg.Pool | undefined;
// Attribution is on while tenants compete (the concurrency step decides); these tests compete by design.
beforeEach(startAttributing);
afterEach(async () => {
  stopAttributing();
  await pool?.end();
  pool = undefined;
});

const open = (size: number, timeoutMs = 5_000) => {
  pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: size });
  return { pool, turns: shareCheckoutsByTenant(pool, size, timeoutMs) };
};

describe('pool checkouts shared by tenant', () => {
  it("serves another tenant's query after one turn, not after a flood's whole queue", async () => {
    const { pool } = open(2);
    const finished: string[] = [];
    const flood = Array.from({ length: 40 }, (_, i) =>
      runAsTenant('a', () => pool.query('SELECT pg_sleep(0.005)')).then(() => finished.push(`a${i}`)),
    );
    const quiet = runAsTenant('b', () => pool.query('SELECT 1')).then(() => finished.push('b'));
    await Promise.all([...flood, quiet]);
    // First come, first served (pg-pool's queue) would answer it last, 41st.
    expect(finished.indexOf('b')).toBeLessThanOrEqual(3);
  });

  it('gives transactions (a checked-out client) their turn and takes it back on release', async () => {
    const { pool, turns } = open(1);
    const client = await runAsTenant('a', () => pool.connect());
    const waiting = runAsTenant('b', () => pool.query('SELECT 2 AS n'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(turns.waitingCount()).toBe(1);
    client.release();
    expect((await waiting).rows).toEqual([{ n: 2 }]);
    expect(turns.waitingCount()).toBe(0);
  });

  it('fails a checkout that waits past the timeout as "unavailable" (503), and forgets it', async () => {
    const { pool, turns } = open(1, 200);
    const client = await pool.connect();
    const error = await pool.query('SELECT 1').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(turns.waitingCount()).toBe(0);
    client.release();
    expect((await pool.query('SELECT 3 AS n')).rows).toEqual([{ n: 3 }]);
  });
});
