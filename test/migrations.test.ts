import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, MigrationChangedError, migrate } from '../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase(); // already migrated once
});
afterAll(() => test.drop());

describe('migrations', () => {
  it('apply once: running them again applies nothing', async () => {
    expect(await migrate(test.database)).toEqual([]);
    const rows = (await test.database.db.execute(
      sql`SELECT name, checksum FROM cadre_migrations ORDER BY name`,
    )) as unknown as {
      rows: Array<{ name: string; checksum: string }>;
    };
    const files = await listMigrations();
    expect(rows.rows).toEqual(files.map((file) => ({ name: file.name, checksum: file.checksum })));
  });

  it('refuse to start when an applied migration was edited afterwards', async () => {
    const [first] = await listMigrations();
    await test.database.db.execute(
      sql`UPDATE cadre_migrations SET checksum = 'edited' WHERE name = ${first!.name}`,
    );
    await expect(migrate(test.database)).rejects.toThrow(MigrationChangedError);
    await expect(migrate(test.database)).rejects.toThrow(first!.name);
  });
});
