import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database } from './client.js';

// The same path from src/db (tests, tsx) and dist/db (built): both sit two levels below the package root.
const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));
const LOCK_KEY = 7_336_172_001; // arbitrary constant: "cadre migrations"
const BREAKPOINT = /^--> statement-breakpoint$/m;

export interface Migration {
  name: string;
  checksum: string;
  statements: string[];
}

export async function listMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql')).sort();
  return Promise.all(
    files.map(async (name) => {
      const text = await readFile(MIGRATIONS_DIR + name, 'utf8');
      return {
        name,
        checksum: createHash('sha256').update(text).digest('hex'),
        statements: text
          .split(BREAKPOINT)
          .map((statement) => statement.trim())
          .filter(Boolean),
      };
    }),
  );
}

/** An applied migration's file was edited since: the schema no longer matches the code that expects it. */
export class MigrationChangedError extends Error {
  constructor(names: string[]) {
    super(
      `Applied migrations were changed after they ran: ${names.join(', ')}. Migrations are immutable once ` +
        'applied: restore the file and add a new migration for the change.',
    );
    this.name = 'MigrationChangedError';
  }
}

/**
 * Applies pending migrations in one transaction holding an advisory lock, so instances that start together
 * queue here: the first applies, the others find nothing left to do.
 */
export async function migrate(database: Database): Promise<string[]> {
  const migrations = await listMigrations();
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
    await tx.execute(
      sql`CREATE TABLE IF NOT EXISTS cadre_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await tx.execute(sql`ALTER TABLE cadre_migrations ADD COLUMN IF NOT EXISTS checksum text`);
    const applied = (await tx.execute(sql`SELECT name, checksum FROM cadre_migrations`)) as unknown as {
      rows: Array<{ name: string; checksum: string | null }>;
    };
    const recorded = new Map(applied.rows.map((row) => [row.name, row.checksum]));
    const changed = migrations.filter((m) => recorded.get(m.name) && recorded.get(m.name) !== m.checksum);
    if (changed.length) throw new MigrationChangedError(changed.map((m) => m.name));
    for (const migration of migrations.filter((m) => recorded.has(m.name) && recorded.get(m.name) === null)) {
      await tx.execute(
        sql`UPDATE cadre_migrations SET checksum = ${migration.checksum} WHERE name = ${migration.name}`,
      );
    }
    const pending = migrations.filter((migration) => !recorded.has(migration.name));
    for (const migration of pending) {
      for (const statement of migration.statements) await tx.execute(sql.raw(statement));
      await tx.execute(
        sql`INSERT INTO cadre_migrations (name, checksum) VALUES (${migration.name}, ${migration.checksum})`,
      );
    }
    return pending.map((migration) => migration.name);
  });
}
