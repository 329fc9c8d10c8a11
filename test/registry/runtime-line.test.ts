import { readFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNTIME_V1_0_PATTERN, runsOnV1_0 } from '../../src/modules/registry/runtime-line.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// Which stored minRuntimeVersions the Perstack-compatible face serves: decided once in runtime-line.ts, and
// again by the database's generated column registry_experts.runs_on_v1_0, which must agree with it.

const CASES: Array<[string, boolean]> = [
  ['v1.0', true],
  ['1.0', true],
  ['1.0.0', true],
  ['v1', true],
  ['1', true],
  ['v1.0.7', true],
  ['1.0.0-beta.1', true],
  ['1-rc', true],
  ['1.0+build.5', true],
  ['0', true],
  ['0.0.0', true],
  ['v0.9', true],
  ['0.3.1', true],
  ['1.1', false],
  ['v1.1.0', false],
  ['1.10', false],
  ['v2', false],
  ['2.0.0', false],
  ['10.0', false],
  ['11', false],
  ['v12.0.0-beta', false],
];

describe('runs on runtime v1.0', () => {
  it.each(CASES)('%s → %s', (version, expected) => {
    expect(runsOnV1_0(version)).toBe(expected);
  });

  describe('the generated column decides the same', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(() => database.drop());

    it('holds the same pattern as runtime-line.ts', async () => {
      const migration = await readFile(
        new URL('../../src/db/migrations/0900_registry_runtime_v1_0.sql', import.meta.url),
        'utf8',
      );
      expect(migration).toContain(`min_runtime_version ~ '${RUNTIME_V1_0_PATTERN.source}'`);
    });

    it('evaluates every case as runsOnV1_0 does', async () => {
      // The column's own expression, as the database stores it, applied to each case.
      const result = await database.database.db.execute(sql`
        SELECT pg_get_expr(d.adbin, d.adrelid) AS expression
        FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
        WHERE d.adrelid = 'registry_experts'::regclass AND a.attname = 'runs_on_v1_0'`);
      const [row] = (result as unknown as { rows: Array<{ expression: string }> }).rows;
      expect(row?.expression).toContain('min_runtime_version');
      const versions = CASES.map(([version]) => version);
      const evaluated = await database.database.db.execute(
        sql`SELECT v AS version, (${sql.raw(row!.expression.replaceAll('min_runtime_version', 'v'))}) AS runs
            FROM unnest(ARRAY[${sql.join(
              versions.map((version) => sql`${version}`),
              sql`, `,
            )}]::text[]) AS v`,
      );
      const answers = (evaluated as unknown as { rows: Array<{ version: string; runs: boolean }> }).rows;
      expect(answers.map((answer) => [answer.version, answer.runs])).toEqual(CASES);
    });
  });
});
