// Statements with parameters run as named statements on both databases: PostgreSQL parses and plans a
// text once per connection (src/db/statement-names.ts), the embedded database once per worker
// (src/db/embedded/named-statements.ts).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatementNames } from '../src/db/statement-names.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(() => testDb.drop());

type Executor = Pick<TestDatabase['database']['db'], 'execute'>;

/** The named statements this session (on PostgreSQL: this connection) holds for `text`. */
async function preparedFor(executor: Executor, text: string): Promise<number> {
  const result = await executor.execute(
    sql`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = ${text}`,
  );
  return (result as unknown as { rows: Array<{ n: number }> }).rows[0]!.n;
}

describe('statements prepared once by name', () => {
  it('parses a statement with parameters once, however often one connection runs it', async () => {
    const text = 'SELECT count(*)::int AS n FROM audit_events WHERE organization_id = $1';
    // A transaction keeps one connection, so the session asked is the one that ran the statements.
    const counts = await testDb.database.db.transaction(async (tx) => {
      const before = await preparedFor(tx, text);
      for (const id of ['a', 'b', 'c'])
        await tx.execute(sql`SELECT count(*)::int AS n FROM audit_events WHERE organization_id = ${id}`);
      return { before, after: await preparedFor(tx, text) };
    });
    expect(counts).toEqual({ before: 0, after: 1 });
  });

  it('runs a statement PostgreSQL refuses with its own error, and the same text again after a fix elsewhere', async () => {
    const { db } = testDb.database;
    await expect(
      db.execute(sql`SELECT no_such_column FROM audit_events WHERE id = ${'x'}`),
    ).rejects.toMatchObject({
      cause: expect.objectContaining({ code: '42703' }),
    });
    // A refused statement leaves no name behind that a later statement could trip over.
    const rows = await db.execute(sql`SELECT ${'fine'}::text AS word`);
    expect((rows as unknown as { rows: unknown[] }).rows).toEqual([{ word: 'fine' }]);
  });

  it('keeps a statement without parameters a simple query: several statements in one text still run', async () => {
    await testDb.database.exec(
      'CREATE TEMP TABLE IF NOT EXISTS scratch (n int); INSERT INTO scratch VALUES (1)',
    );
    await testDb.database.exec('DROP TABLE IF EXISTS scratch');
  });
});

describe('statement names on PostgreSQL', () => {
  it('gives one name per text, and none beyond its capacity', () => {
    const nameOf = createStatementNames(2);
    const first = nameOf('SELECT $1');
    expect(nameOf('SELECT $1')).toBe(first);
    const second = nameOf('SELECT $1, $2');
    expect(second).not.toBe(first);
    expect(nameOf('SELECT $1, $2, $3')).toBeUndefined();
    expect(nameOf('SELECT $1')).toBe(first);
  });
});
