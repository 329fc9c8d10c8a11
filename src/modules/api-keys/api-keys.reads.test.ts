import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../db/client.js';
import { migrate } from '../../db/migrate.js';
import { createApiKeyReads } from './api-keys.reads.js';

let database: Database;
let statements = 0;
const KEYS = Array.from({ length: 30 }, (_, index) => `key-${String(index).padStart(2, '0')}`);

beforeAll(async () => {
  database = await openDatabase({ dataDir: 'memory://' });
  await migrate(database);
  const { db } = database;
  await db.execute(
    sql`INSERT INTO organizations (id, slug, name, account_type) VALUES ('org-1', 'one', 'One', 'team')`,
  );
  await db.execute(
    sql`INSERT INTO users (id, email) VALUES ('user-1', 'one@example.test'), ('user-2', 'two@example.test')`,
  );
  for (const [index, id] of KEYS.entries()) {
    const user = index % 2 === 0 ? 'user-1' : 'user-2';
    await db.execute(sql`
      INSERT INTO api_keys (id, organization_id, user_id, name, start, digest, grants)
      VALUES (${id}, 'org-1', ${user}, ${`name of ${id}`}, 'cadre_ab', ${`digest-${id}`},
              '{"type":"organization","permissions":["*"]}'::jsonb)`);
  }
  database.observeQueries(() => statements++);
});
afterAll(() => database.close());

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

it('answers every caller of one turn with its own row, a missing id with nothing, in one statement', async () => {
  const reads = createApiKeyReads(database);
  statements = 0;
  const asked = [...KEYS, 'missing-1', KEYS[3]!, 'missing-2', ...KEYS.slice(0, 5)];
  const answers: Array<Promise<unknown>> = [];
  for (const id of asked) {
    answers.push(reads.byId(id));
    // Requests parsed from different sockets in one turn are callbacks of their own: ticks apart.
    await nextTick();
  }
  const rows = (await Promise.all(answers)) as Array<{ id: string; name: string } | undefined>;
  expect(rows.map((row) => row?.id)).toEqual(asked.map((id) => (id.startsWith('missing') ? undefined : id)));
  expect(rows.map((row) => row?.name)).toEqual(
    asked.map((id) => (id.startsWith('missing') ? undefined : `name of ${id}`)),
  );
  expect(statements).toBe(1);
});

it('pages newest first, every key or one member’s, after a cursor', async () => {
  const reads = createApiKeyReads(database);
  const first = await reads.page({ organizationId: 'org-1', limit: 4 });
  expect(first.map((row) => row.id)).toEqual(['key-29', 'key-28', 'key-27', 'key-26']);
  const next = await reads.page({ organizationId: 'org-1', limit: 2, before: first.at(-1)!.seq });
  expect(next.map((row) => row.id)).toEqual(['key-25', 'key-24']);
  const own = await reads.page({ organizationId: 'org-1', userId: 'user-1', limit: 3 });
  expect(own.map((row) => row.id)).toEqual(['key-28', 'key-26', 'key-24']);
  const ownNext = await reads.page({ organizationId: 'org-1', userId: 'user-2', limit: 2, before: 27 });
  expect(ownNext.every((row) => row.userId === 'user-2' && row.seq < 27)).toBe(true);
  expect(await reads.page({ organizationId: 'org-2', limit: 5 })).toEqual([]);
});

it('answers the pages asked for in one turn in one statement per shape, each caller its own page', async () => {
  const reads = createApiKeyReads(database);
  statements = 0;
  const asked = [
    { organizationId: 'org-1', limit: 2 },
    { organizationId: 'org-2', limit: 5 },
    { organizationId: 'org-1', limit: 3, before: 20 },
    { organizationId: 'org-1', limit: 1 },
    { organizationId: 'org-1', userId: 'user-2', limit: 2 },
  ];
  const answers: Array<Promise<Array<{ id: string }>>> = [];
  for (const query of asked) {
    answers.push(reads.page(query));
    await nextTick();
  }
  const pages = (await Promise.all(answers)).map((page) => page.map((row) => row.id));
  expect(pages).toEqual([
    ['key-29', 'key-28'],
    [],
    ['key-18', 'key-17', 'key-16'],
    ['key-29'],
    ['key-29', 'key-27'],
  ]);
  // Three shapes: every key first page (three callers), after a cursor, and one member's own.
  expect(statements).toBe(3);
});
