import type pg from 'pg';

/** How many sessions of the current database wait on a lock (PostgreSQL). */
export async function waitingOnLocks(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
  );
  return Number(rows[0]!.n);
}

/** Polls `check` every 25 ms, for up to 10 s. */
export async function until(check: () => Promise<boolean> | boolean, what = 'a condition') {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
