import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database } from './client.js';

// The same path from src/db (tests, tsx) and dist/db (built): both sit two levels below the package root.
const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));
const LOCK_KEY = 7_336_172_001; // arbitrary constant: "cadre migrations"
const BREAKPOINT = /^--> statement-breakpoint$/m;

export async function listMigrations(): Promise<Array<{ name: string; statements: string[] }>> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql')).sort();
  return Promise.all(
    files.map(async (name) => ({
      name,
      statements: (await readFile(MIGRATIONS_DIR + name, 'utf8'))
        .split(BREAKPOINT)
        .map((statement) => statement.trim())
        .filter(Boolean),
    })),
  );
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
    const applied = (await tx.execute(sql`SELECT name FROM cadre_migrations`)) as unknown as {
      rows: Array<{ name: string }>;
    };
    const done = new Set(applied.rows.map((row) => row.name));
    const pending = migrations.filter((migration) => !done.has(migration.name));
    for (const migration of pending) {
      for (const statement of migration.statements) await tx.execute(sql.raw(statement));
      await tx.execute(sql`INSERT INTO cadre_migrations (name) VALUES (${migration.name})`);
    }
    return pending.map((migration) => migration.name);
  });
}
