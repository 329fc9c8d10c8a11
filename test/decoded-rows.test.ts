// Rows decoded by a decoder built once (src/db/decoded-rows.ts) are exactly what drizzle's own mapping gives
// for the same select, on both databases: columns of every decoded type (timestamps, jsonb, bigint as a
// number), nulls, a subquery's columns, and expressions with and without `mapWith`.
import { desc, eq, getTableColumns, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { prepareArrays, prepareDecoded, rowDecoder } from '../src/db/decoded-rows.js';
import { auditEvents } from '../src/modules/audit/audit.tables.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
  const { db } = testDb.database;
  await db.execute(sql`INSERT INTO organizations (id, slug, name, account_type)
    VALUES ('org-decoded', 'decoded', 'Decoded', 'team')`);
  await db.insert(auditEvents).values([
    {
      id: 'decoded-1',
      organizationId: 'org-decoded',
      action: 'project.created',
      actorKind: 'session',
      actorUserId: 'user-1',
      targetType: 'project',
      targetId: 'p-1',
      metadata: { name: 'Web', nested: { list: [1, 'two', null] } },
      createdAt: new Date('2026-11-24T10:11:12.345Z'),
    },
    {
      id: 'decoded-2',
      organizationId: 'org-decoded',
      action: 'project.deleted',
      actorKind: 'admin',
      targetType: 'project',
      targetId: 'p-1',
      metadata: null,
      createdAt: new Date('2026-11-24T10:11:13Z'),
    },
  ]);
});
afterAll(() => testDb.drop());

it('decodes a table select exactly as drizzle does', async () => {
  const { db } = testDb.database;
  const fields = {
    ...getTableColumns(auditEvents),
    seqText: sql<string>`${auditEvents.seq}::text`.as('seq_text'),
    seqNumber: sql<number>`${auditEvents.seq}::text`.mapWith(Number).as('seq_number'),
    at: sql<Date>`${auditEvents.createdAt}`.mapWith(auditEvents.createdAt),
  };
  const query = db
    .select(fields)
    .from(auditEvents)
    .where(eq(auditEvents.organizationId, sql.placeholder('organization')))
    .orderBy(auditEvents.seq);
  const expected = await query.prepare('decoded_rows_expected').execute({ organization: 'org-decoded' });
  const decoded = await prepareDecoded<(typeof expected)[number]>(
    db,
    'decoded_rows_table',
    query,
    fields,
  ).execute({
    organization: 'org-decoded',
  });
  expect(decoded).toEqual(expected);
  expect(decoded[0]!.createdAt).toEqual(new Date('2026-11-24T10:11:12.345Z'));
  expect(decoded[0]!.metadata).toEqual({ name: 'Web', nested: { list: [1, 'two', null] } });
  expect(typeof decoded[0]!.seq).toBe('number');
  expect(decoded[1]!.actorUserId).toBeNull();
});

it("decodes a subquery's columns, after columns of the statement's own", async () => {
  const { db } = testDb.database;
  const page = db
    .select({ ...getTableColumns(auditEvents), label: sql<string>`upper(${auditEvents.action})`.as('label') })
    .from(auditEvents)
    .orderBy(desc(auditEvents.seq))
    .as('page');
  const fields = { ...getTableColumns(auditEvents), label: page.label };
  const pageFields = Object.fromEntries(
    Object.keys(fields).map((key) => [key, page[key as keyof typeof page]]),
  ) as unknown as typeof fields;
  const query = db
    .select({ lead: sql<string>`'lead'`, ...pageFields })
    .from(page)
    .where(eq(page.organizationId, 'org-decoded'))
    .orderBy(desc(page.seq));
  const expected = (await query).map(({ lead: _lead, ...row }) => row);
  expect(expected).toHaveLength(2);
  const decode = rowDecoder<(typeof expected)[number]>(pageFields, 1);
  const rows = await prepareArrays(testDb.database.db, 'decoded_rows_arrays', query, (arrays) =>
    arrays.map(decode),
  ).execute({});
  expect(rows).toEqual(expected);
  expect(rows.map((row) => row.label)).toEqual(['PROJECT.DELETED', 'PROJECT.CREATED']);
});
