import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Change, type ChangeBus, createChangeBus } from '../src/db/change-bus.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';

// Two buses on one database stand for two instances: each listens and acknowledges on its own.
let database: TestDatabase;
let writer: ChangeBus;
let other: ChangeBus;
const seen = { writer: [] as string[], other: [] as string[] };
const errors: unknown[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  await database.database.exec('CREATE TABLE bus_probe (id text PRIMARY KEY)');
  writer = createChangeBus(database.database, (error) => errors.push(error));
  other = createChangeBus(database.database, (error) => errors.push(error));
  for (const [bus, log] of [
    [writer, seen.writer],
    [other, seen.other],
  ] as const) {
    bus.subscribe({ onChange: (change) => log.push(change.id ?? ''), reset: () => log.push('reset') });
    await bus.start();
  }
});
afterAll(async () => {
  await other.stop();
  await writer.stop();
  await database.drop();
  expect(errors).toEqual([]);
});

const rows = async () =>
  (
    (await database.database.db.execute(sql`SELECT id FROM bus_probe ORDER BY id`)) as unknown as {
      rows: { id: string }[];
    }
  ).rows.map((row) => row.id);

describe('ChangeBus.commit', () => {
  it('commits the work, evicts each change here after the commit, and answers once every instance has it', async () => {
    const evicted: Change[] = [];
    const answer = await writer.commit(
      async (tx, publish) => {
        await tx.execute(sql`INSERT INTO bus_probe (id) VALUES ('one'), ('two')`);
        await publish({ topic: 'probe', id: 'one' });
        await publish({ topic: 'probe', id: 'two' });
        return 'done';
      },
      (change) => evicted.push(change),
    );
    expect(answer).toBe('done');
    expect(await rows()).toEqual(['one', 'two']);
    expect(evicted).toEqual([
      { topic: 'probe', id: 'one' },
      { topic: 'probe', id: 'two' },
    ]);
    // No waiting here: commit answered only after both instances had applied both changes.
    expect(seen.writer.slice(-2)).toEqual(['one', 'two']);
    expect(seen.other.slice(-2)).toEqual(['one', 'two']);
  });

  it('a rolled-back commit writes, publishes and evicts nothing', async () => {
    const evicted: Change[] = [];
    await expect(
      writer.commit(
        async (tx, publish) => {
          await tx.execute(sql`INSERT INTO bus_probe (id) VALUES ('lost')`);
          await publish({ topic: 'probe', id: 'lost' });
          throw new Error('refused');
        },
        (change) => evicted.push(change),
      ),
    ).rejects.toThrow('refused');
    // Notifications arrive in commit order: once this one is applied, a delivered 'lost' would be seen.
    await writer.commit((_tx, publish) => publish({ topic: 'probe', id: 'after' }));
    expect(evicted).toEqual([]);
    expect(await rows()).not.toContain('lost');
    expect(seen.writer).not.toContain('lost');
    expect(seen.other).not.toContain('lost');
    expect(seen.other.at(-1)).toBe('after');
  });

  it('answers only once a slower instance has acknowledged the change', async () => {
    // A third listener speaking the bus's protocol by hand, acknowledging 300 ms late.
    let acknowledgedAt = 0;
    const stop = await database.database.listen('cadre_changes', (payload) => {
      const change = JSON.parse(payload) as Change;
      if (change.topic !== 'probe') return;
      setTimeout(async () => {
        const ack = JSON.stringify({ topic: '_ack', nonce: change.nonce, instance: 'slow' });
        acknowledgedAt = performance.now();
        await database.database.db.execute(sql`SELECT pg_notify('cadre_changes', ${ack})`);
      }, 300);
    });
    try {
      await writer.commit((_tx, publish) => publish({ topic: 'probe', id: 'slow' }));
      const answeredAt = performance.now();
      expect(acknowledgedAt).toBeGreaterThan(0);
      // Answered on the acknowledgement, not on the 2 s give-up.
      expect(answeredAt - acknowledgedAt).toBeLessThan(1_000);
    } finally {
      await stop();
    }
  });
});
