import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAsTenant, startAttributing, stopAttributing } from '../../lib/tenant-context.js';
import { isDatabaseUnavailable, sqlState } from '../errors.js';
import { type EmbeddedClient, openEmbedded } from './client.js';

let client: EmbeddedClient | undefined;
// Attribution is on while tenants compete (the concurrency step decides); these tests compete by design.
beforeEach(startAttributing);
afterEach(async () => {
  stopAttributing();
  await client?.close();
  client = undefined;
});

const open = async () => {
  client = await openEmbedded(undefined);
  return client;
};

// A statement that keeps the connection for a few milliseconds.
const SLOW = 'SELECT count(*) FROM generate_series(1, 50000)';

describe('the embedded database in its own thread', () => {
  it('takes turns between tenants: one queued behind a hundred statements of another runs next', async () => {
    const db = await open();
    const finished: string[] = [];
    const flood = Array.from({ length: 100 }, (_, i) =>
      runAsTenant('a', () => db.query(SLOW)).then(() => finished.push(`a${i}`)),
    );
    const quiet = runAsTenant('b', () => db.query('SELECT 1')).then(() => finished.push('b'));
    await Promise.all([...flood, quiet]);
    // First come, first served would run it 101st; the rotation runs it after at most the statement
    // running when it arrived and the one whose turn came first.
    expect(finished.indexOf('b')).toBeLessThanOrEqual(2);
  });

  it('lets an open transaction keep the connection: another tenant waits for its end', async () => {
    const db = await open();
    await db.exec('CREATE TABLE notes (id int PRIMARY KEY)');
    const events: string[] = [];
    let reader: Promise<unknown> | undefined;
    await runAsTenant('a', () =>
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO notes VALUES (1)');
        reader = runAsTenant('b', () => db.query<{ n: number }>('SELECT count(*)::int AS n FROM notes')).then(
          ({ rows }) => events.push(`read ${rows[0]!.n}`),
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
        await tx.query('INSERT INTO notes VALUES (2)');
        events.push('committing');
      }),
    );
    await reader;
    expect(events).toEqual(['committing', 'read 2']);
  });

  it('rolls a transaction back when its work throws, and keeps serving', async () => {
    const db = await open();
    await db.exec('CREATE TABLE notes (id int PRIMARY KEY)');
    const failed = db.transaction(async (tx) => {
      await tx.query('INSERT INTO notes VALUES (1)');
      throw new Error('changed my mind');
    });
    await expect(failed).rejects.toThrow('changed my mind');
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notes');
    expect(rows).toEqual([{ n: 0 }]);
  });

  it("keeps the database's error fields across the thread", async () => {
    const db = await open();
    await db.exec('CREATE TABLE notes (id int CONSTRAINT notes_pk PRIMARY KEY)');
    const error = await db.query('INSERT INTO notes VALUES (1), (1)').catch((e: unknown) => e);
    expect(sqlState(error)).toBe('23505');
    expect(error).toMatchObject({ constraint: 'notes_pk', table: 'notes' });
    expect((error as Error).message).toMatch(/duplicate key/);
  });

  it("applies the caller's parsers on this side, to the columns of their types only", async () => {
    const db = await open();
    const { rows } = await db.query<Record<string, unknown>>(
      "SELECT '2026-01-02 03:04:05+00'::timestamptz AS at, 7 AS n, '{\"a\":1}'::jsonb AS j",
      [],
      { parsers: { 1184: (text) => `parsed ${text}` } },
    );
    expect(rows).toEqual([{ at: 'parsed 2026-01-02 03:04:05+00', n: 7, j: { a: 1 } }]);
    const array = await db.query('SELECT 1 AS one, now() AS at', [], {
      rowMode: 'array',
      parsers: { 1184: () => 'kept' },
    });
    expect(array.rows).toEqual([[1, 'kept']]);
  });

  it('parses timestamps, dates and their arrays as PGlite does when the caller names no parser', async () => {
    const db = await open();
    const statement =
      "SELECT '2026-01-02 03:04:05+00'::timestamptz AS at, '2026-01-02'::date AS day, ARRAY['2026-01-02 03:04:05+00'::timestamptz] AS ats, '1.5'::numeric AS n";
    const { rows } = await db.query<Record<string, unknown>>(statement);
    const [row] = rows;
    expect(row?.at).toEqual(new Date('2026-01-02T03:04:05Z'));
    expect(row?.day).toBeInstanceOf(Date);
    expect(row?.ats).toEqual([new Date('2026-01-02T03:04:05Z')]);
    expect(row?.n).toBe('1.5');
    const kept = await db.query<Record<string, unknown>>(statement, [], {
      parsers: { 1185: (text) => text },
    });
    expect(kept.rows[0]?.ats).toBe('{"2026-01-02 03:04:05+00"}');
    expect(kept.rows[0]?.at).toEqual(new Date('2026-01-02T03:04:05Z'));
  });

  it('delivers notifications to listeners until they unsubscribe', async () => {
    const db = await open();
    const heard: string[] = [];
    const stop = await db.listen('changes', (payload) => heard.push(payload));
    await db.query("SELECT pg_notify('changes', 'one')");
    await expect.poll(() => heard).toEqual(['one']);
    await stop();
    await db.query("SELECT pg_notify('changes', 'two')");
    await db.query('SELECT 1');
    expect(heard).toEqual(['one']);
  });

  it('fails a statement whose parameters cannot cross to the thread, and keeps serving', async () => {
    const db = await open();
    await expect(db.query('SELECT $1::text AS t', [() => 'a function'])).rejects.toThrow(
      /could not be cloned/,
    );
    expect(db.contended()).toBe(false);
    expect((await db.query('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
  });

  it('answers "unavailable" (never hangs) once closed', async () => {
    const db = await open();
    await db.close();
    client = undefined;
    const error = await db.query('SELECT 1').catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
  });
});
