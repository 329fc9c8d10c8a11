import { sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../src/schema.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

// The Drizzle tables are written by hand beside the SQL migrations that create the real ones: this compares
// each with the migrated database, so the two cannot drift apart unnoticed.

type Column = { table: string; column: string; type: string; nullable: boolean };

/** information_schema's type, written the way Drizzle's getSQLType() writes it. */
const databaseType = (dataType: string, udtName: string) =>
  dataType === 'ARRAY' ? `${udtName.replace(/^_/, '')}[]` : dataType;

/** Drizzle's type without its precision (`timestamp (3) with time zone`), as information_schema writes it. */
const drizzleType = (type: string) => type.replace(/\s?\(\d+\)/, '').replace(/^serial$/, 'integer');

describe('Drizzle tables match the migrated database', () => {
  let database: TestDatabase;
  let actual: Column[];
  beforeAll(async () => {
    database = await createTestDatabase();
    const result = await database.database.db.execute(sql`
      SELECT table_name, column_name, data_type, udt_name, is_nullable
      FROM information_schema.columns WHERE table_schema = current_schema()`);
    actual = (result as unknown as { rows: Array<Record<string, string>> }).rows.map((row) => ({
      table: row.table_name!,
      column: row.column_name!,
      type: databaseType(row.data_type!, row.udt_name!),
      nullable: row.is_nullable === 'YES',
    }));
  });
  afterAll(() => database.drop());

  const tables = (Object.values(schema) as unknown[]).filter(
    (value): value is PgTable => value instanceof PgTable,
  );

  it('every table is there', () => {
    expect(tables.length).toBeGreaterThan(10);
    const existing = new Set(actual.map((column) => column.table));
    expect(tables.map((table) => getTableConfig(table).name).filter((name) => !existing.has(name))).toEqual(
      [],
    );
  });

  it.each(tables.map((table) => [getTableConfig(table).name, table] as const))(
    '%s: the same columns, types and nullability',
    (name, table) => {
      const declared = getTableConfig(table)
        .columns.map((column) => ({
          table: name,
          column: column.name,
          type: drizzleType(column.getSQLType()),
          nullable: !column.notNull,
        }))
        .sort((a, b) => a.column.localeCompare(b.column));
      const migrated = actual
        .filter((column) => column.table === name)
        .sort((a, b) => a.column.localeCompare(b.column));
      expect(declared).toEqual(migrated);
    },
  );
});
