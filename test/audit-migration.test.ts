import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations } from '../src/db/migrate.js';
import { recordAuditEvent } from '../src/modules/audit/audit.repo.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(() => test.drop());

const rowsOf = async <T>(query: ReturnType<typeof sql>) =>
  ((await test.database.db.execute(query)) as unknown as { rows: T[] }).rows;

describe('0820_audit_metadata on a database that already has events', () => {
  it('numbers the existing events in the order they happened; new events follow them', async () => {
    const { db } = test.database;
    // Back to the schema before 0820, with events inserted in another order than they happened.
    await db.execute(sql`DROP INDEX audit_events_org_seq, audit_events_org_action_seq,
      audit_events_org_actor_user_seq, audit_events_org_actor_key_seq`);
    await db.execute(sql`ALTER TABLE audit_events DROP COLUMN seq, DROP COLUMN metadata,
      DROP CONSTRAINT audit_events_actor_kind_check`);
    await db.execute(sql`ALTER TABLE audit_events ADD CONSTRAINT audit_events_actor_kind_check
      CHECK (actor_kind IN ('apiKey', 'session', 'admin'))`);
    await db.execute(sql`INSERT INTO organizations (id, slug, name, account_type)
      VALUES ('org_m', 'org-m', 'M', 'personal')`);
    for (const [id, minute] of [
      ['e_third', 3],
      ['e_first', 1],
      ['e_second', 2],
    ] as const) {
      await db.execute(sql`INSERT INTO audit_events
        (id, organization_id, action, actor_kind, target_type, target_id, created_at)
        VALUES (${id}, 'org_m', 'api_key.created', 'admin', 'apiKey', ${id},
          ${new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString()}::timestamptz)`);
    }

    const migration = (await listMigrations()).find((m) => m.name === '0820_audit_metadata.sql')!;
    for (const statement of migration.statements) await db.execute(sql.raw(statement));

    await recordAuditEvent(db, {
      organizationId: 'org_m',
      action: 'connection.deleted',
      actor: { kind: 'system' },
      target: { type: 'connection', id: 'e_new' },
      at: new Date(Date.UTC(2025, 0, 1)),
      metadata: { revocation: { outcome: 'revoked' } },
    });
    const rows = await rowsOf<{ id: string; seq: string; metadata: unknown }>(
      sql`SELECT id, seq, metadata FROM audit_events WHERE organization_id = 'org_m' ORDER BY seq`,
    );
    expect(rows.map((row) => [row.id, Number(row.seq)])).toEqual([
      ['e_first', 1],
      ['e_second', 2],
      ['e_third', 3],
      [expect.any(String), 4],
    ]);
    expect(rows[3]!.metadata).toEqual({ revocation: { outcome: 'revoked' } });
    // seq is the database's: a client cannot set it.
    await expect(
      db.execute(sql`INSERT INTO audit_events (id, seq, organization_id, action, actor_kind, target_type, target_id)
        VALUES ('e_forced', 99, 'org_m', 'x', 'admin', 't', 't')`),
    ).rejects.toThrow();
  });
});
