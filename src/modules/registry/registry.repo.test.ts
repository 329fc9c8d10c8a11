import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../db/client.js';
import { migrate } from '../../db/migrate.js';
import { parseExpertKey } from '../../shared/expert/expert-definition.js';
import { createRecordReader } from './registry.repo.js';
import { createListReader } from './registry-list.repo.js';

let database: Database;
let statements = 0;
beforeAll(async () => {
  database = await openDatabase({ dataDir: 'memory://' });
  await migrate(database);
  database.observeQueries(() => statements++);
});
afterAll(() => database.close());

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

it('reads asked for in one event-loop turn share one query, even when ticks apart (as requests are)', async () => {
  const reader = createRecordReader(database.db, 10);
  statements = 0;
  const first = reader.readByKey(parseExpertKey('batched-a@1.0.0'));
  // Requests parsed from different sockets in one turn are separate callbacks: ticks apart, same turn.
  await nextTick();
  await nextTick();
  const second = reader.readByKey(parseExpertKey('batched-b@1.0.0'));
  const again = reader.readByKey(parseExpertKey('batched-a@1.0.0'));
  expect(await Promise.all([first, second, again])).toEqual([undefined, undefined, undefined]);
  expect(statements).toBe(1);

  // A later turn is a batch of its own.
  await reader.readByKey(parseExpertKey('batched-c@1.0.0'));
  expect(statements).toBe(2);
});

it('reads identical lists asked for in one turn once, and different ones each for itself', async () => {
  const list = createListReader(database.db, 10);
  statements = 0;
  const base = { order: 'desc' as const, take: 10, skip: 0 };
  const first = list(base);
  await nextTick();
  const same = list({ ...base });
  const other = list({ ...base, sort: 'name', order: 'asc' });
  const answers = await Promise.all([first, same, other]);
  expect(answers.map((answer) => answer.total)).toEqual([0, 0, 0]);
  // One page and one total for the two identical lists, one page and one total for the other.
  expect(statements).toBe(4);
});
