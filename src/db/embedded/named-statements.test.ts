import { PGlite, type Results } from '@electric-sql/pglite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNamedStatements } from './named-statements.js';

let database: PGlite;
beforeEach(async () => {
  database = await PGlite.create();
  await database.exec(`
    CREATE TABLE keys (id int PRIMARY KEY, name text NOT NULL, scopes jsonb, created_at timestamptz DEFAULT now());
    INSERT INTO keys (id, name, scopes) VALUES (1, 'one', '["a"]'), (2, 'two', null);
  `);
});
afterEach(() => database.close());

/** The statements PostgreSQL holds for this session under our names. */
async function prepared(): Promise<string[]> {
  const { rows } = await database.query<{ statement: string }>(
    `SELECT statement FROM pg_prepared_statements WHERE name LIKE 'cadre_%' ORDER BY statement`,
  );
  return rows.map((row) => row.statement);
}

/** Runs through the named statements; `unnamed` records that a statement fell back to PGlite's own run. */
function harness(capacity?: number) {
  const statements = createNamedStatements(database, capacity ? { capacity } : {});
  const fellBack: string[] = [];
  const query = (text: string, params: unknown[] = [], inTransaction = false) =>
    statements.query(text, params, { rowMode: 'object' }, inTransaction, () => {
      fellBack.push(text);
      return database.query(text, params, { rowMode: 'object' });
    });
  return { query, fellBack };
}

const shape = ({ rows, fields, affectedRows }: Results<unknown>) => ({ rows, fields, affectedRows });

describe('named statements on the embedded database', () => {
  it('answers exactly as PGlite does: rows, fields, parsed types, affected rows', async () => {
    const { query } = harness();
    const cases: Array<[string, unknown[]]> = [
      ['SELECT id, name, scopes, created_at FROM keys WHERE id = ANY($1) ORDER BY id', [[1, 2]]],
      ['SELECT id FROM keys WHERE name = $1', ['nobody']],
      ['UPDATE keys SET scopes = $1 WHERE id = $2', [{ b: [1, 'x'] }, 2]],
      ['INSERT INTO keys (id, name) VALUES ($1, $2) RETURNING id, name', [3, 'three']],
      ['SELECT count(*)::int AS n, $1::text IS NULL AS missing FROM keys', [null]],
    ];
    // Each statement runs named, then unnamed, with the insert undone after each so both see one table.
    const undo = () => database.query('DELETE FROM keys WHERE id = 3');
    for (const [text, params] of cases) {
      const named = await query(text, params);
      await undo();
      const plain = await database.query(text, params);
      await undo();
      expect(shape(named), text).toEqual(shape(plain));
    }
    expect((await query('SELECT scopes FROM keys WHERE id = 2')).rows).toEqual([{ scopes: { b: [1, 'x'] } }]);
  });

  it('parses a statement text once, however often it runs', async () => {
    const { query } = harness();
    for (let id = 1; id <= 5; id++) await query('SELECT name FROM keys WHERE id = $1', [id]);
    await query('SELECT id FROM keys WHERE name = $1', ['one']);
    expect(await prepared()).toEqual([
      'SELECT id FROM keys WHERE name = $1',
      'SELECT name FROM keys WHERE id = $1',
    ]);
  });

  it('keeps at most its capacity, closing the least recently used', async () => {
    const { query } = harness(2);
    await query('SELECT 1 AS a');
    await query('SELECT 2 AS b');
    await query('SELECT 1 AS a'); // used again: now the most recent
    await query('SELECT 3 AS c');
    expect(await prepared()).toEqual(['SELECT 1 AS a', 'SELECT 3 AS c']);
  });

  it('inside a transaction with no room, runs the statement unnamed rather than closing one', async () => {
    const { query, fellBack } = harness(1);
    await query('SELECT 1 AS a');
    await database.exec('BEGIN');
    expect((await query('SELECT 2 AS b', [], true)).rows).toEqual([{ b: 2 }]);
    await database.exec('COMMIT');
    expect(fellBack).toEqual(['SELECT 2 AS b']);
    expect(await prepared()).toEqual(['SELECT 1 AS a']);
  });

  it("fails with PostgreSQL's own error and the statement, and keeps serving", async () => {
    const { query } = harness();
    const duplicate = await query('INSERT INTO keys (id, name) VALUES ($1, $2)', [1, 'again']).catch(
      (error: unknown) => error,
    );
    expect(duplicate).toMatchObject({
      code: '23505',
      constraint: 'keys_pkey',
      query: 'INSERT INTO keys (id, name) VALUES ($1, $2)',
    });
    const syntax = await query('SELEC 1').catch((error: unknown) => error);
    const unnamed = await database.query('SELEC 1').catch((error: unknown) => error);
    expect(syntax).toMatchObject({ code: '42601', message: (unnamed as Error).message });
    expect((await query('SELECT name FROM keys WHERE id = $1', [1])).rows).toEqual([{ name: 'one' }]);
    expect(await prepared()).toEqual([
      'INSERT INTO keys (id, name) VALUES ($1, $2)',
      'SELECT name FROM keys WHERE id = $1',
    ]);
  });

  it('prepares again when something dropped the session’s statements', async () => {
    const { query } = harness();
    expect((await query('SELECT name FROM keys WHERE id = $1', [1])).rows).toEqual([{ name: 'one' }]);
    await database.exec('DEALLOCATE ALL');
    expect((await query('SELECT name FROM keys WHERE id = $1', [2])).rows).toEqual([{ name: 'two' }]);
    expect(await prepared()).toEqual(['SELECT name FROM keys WHERE id = $1']);
  });

  it('delivers the notifications a statement sends', async () => {
    const { query } = harness();
    const heard: string[] = [];
    await database.listen('changes', (payload) => heard.push(payload));
    await query('SELECT pg_notify($1, $2)', ['changes', 'hello']);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(heard).toEqual(['hello']);
  });
});
