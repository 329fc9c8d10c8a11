// Statements with parameters run as named statements on both databases: PostgreSQL parses and plans a
// text once per connection (src/db/statement-names.ts), the embedded database once per worker
// (src/db/embedded/named-statements.ts).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatementNames, nameStatements } from '../src/db/statement-names.js';
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

  it('answers a statement PostgreSQL refuses with its own error, and keeps serving', async () => {
    const { db } = testDb.database;
    // Twice: a refused statement leaves no name behind that its next run could trip over.
    for (let run = 0; run < 2; run++) {
      await expect(
        db.execute(sql`SELECT no_such_column FROM audit_events WHERE id = ${'x'}`),
      ).rejects.toMatchObject({ cause: expect.objectContaining({ code: '42703' }) });
    }
    const rows = await db.execute(sql`SELECT ${'fine'}::text AS word`);
    expect((rows as unknown as { rows: unknown[] }).rows).toEqual([{ word: 'fine' }]);
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

  it('names only statements with parameters and no name of their own, in both forms of values', () => {
    const sent: unknown[] = [];
    const client = { query: (config: unknown) => sent.push(config) };
    nameStatements(client as never, () => 'cadre_s1');
    const call = client.query as (...args: unknown[]) => unknown;
    call({ text: 'SELECT $1', values: [1] });
    call({ text: 'SELECT $1', name: undefined }, [1]); // drizzle's form
    call({ text: 'SELECT $1', name: 'mine' }, [1]);
    call({ text: 'CREATE TABLE a (n int); DROP TABLE a', values: [] }); // a simple query: may hold several
    call('SELECT $1', [1]);
    expect(sent).toEqual([
      { text: 'SELECT $1', values: [1], name: 'cadre_s1' },
      { text: 'SELECT $1', name: 'cadre_s1' },
      { text: 'SELECT $1', name: 'mine' },
      { text: 'CREATE TABLE a (n int); DROP TABLE a', values: [] },
      'SELECT $1',
    ]);
  });
});
