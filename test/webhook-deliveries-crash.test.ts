import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { generateKeyEntry } from '../src/lib/key-ring.js';
import { createTestDatabase, onPostgres, type TestDatabase } from './support/database.js';
import { http } from './support/http.js';
import { ADMIN, createKeyBody, ownerKeyOf } from './support/load.js';
import { type CadreProcess, startCadre } from './support/process.js';
import { type Receiver, startReceiver, verify } from './support/webhook-receiver.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * kill -9 of the service while deliveries are in flight: every event whose change was acknowledged is
 * delivered after the restart (the outbox row was written in the change's transaction), and what arrives
 * twice is only what was in flight at the kill (at least once, with the same webhook-id).
 */
describe(`webhook deliveries survive kill -9 (${onPostgres() ? 'PostgreSQL' : 'embedded PGlite'})`, () => {
  let dataDir: string;
  let testDb: TestDatabase | undefined;
  let receiver: Receiver;
  const started: CadreProcess[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cadre-webhook-crash-'));
    if (onPostgres()) testDb = await createTestDatabase();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const cadre of started) {
      if (cadre.child.exitCode === null && cadre.child.signalCode === null) await cadre.stop('SIGKILL');
    }
    await receiver.close();
    await testDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('loses no acknowledged event and repeats only what was in flight', async () => {
    const env = {
      CADRE_ADMIN_TOKEN: ADMIN,
      CADRE_BOOTSTRAP: 'off',
      CADRE_LOG_REQUESTS: 'false',
      CADRE_DATA_DIR: dataDir,
      CADRE_ENCRYPTION_KEYS: generateKeyEntry('k1'),
      CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
      CADRE_WEBHOOKS_LEASE_SECONDS: '15',
      ...(testDb?.url ? { DATABASE_URL: testDb.url } : {}),
    };
    // The receiver takes 400 ms over each answer, so deliveries are in flight when the kill comes.
    receiver.respond('/crash', (_request, response) => {
      setTimeout(() => response.end('ok'), 400);
    });
    const first = await startCadre(env, 120_000);
    started.push(first);
    const owner = await ownerKeyOf(first.url, 'crash');
    const created = await http<{ data: { endpoint: { id: string }; secret: string } }>(
      first.url,
      'POST',
      '/api/v1/webhook-endpoints',
      { key: owner.key, body: { url: receiver.url('/crash'), eventTypes: ['api_key.created'] } },
    );
    expect(created.status, created.text).toBe(201);
    const { secret } = created.body.data;

    // Keys are created one after another; each acknowledged one is an event that must arrive.
    const acknowledged = new Set<string>();
    let stop = false;
    const writer = (async () => {
      for (let i = 0; i < 200 && !stop; i++) {
        const res = await http<{ data: { id: string } }>(first.url, 'POST', '/api/v1/api-keys', {
          key: owner.key,
          body: createKeyBody(`crash-${i}`),
        }).catch(() => undefined);
        if (res && res.status < 300) acknowledged.add(res.body.data.id);
        else break;
      }
    })();
    for (let i = 0; i < 1_000 && receiver.at('/crash').length < 8; i++) await sleep(10);
    first.child.kill('SIGKILL');
    stop = true;
    await writer;
    const beforeKill = receiver.at('/crash').length;
    expect(beforeKill).toBeGreaterThanOrEqual(8);
    expect(acknowledged.size).toBeGreaterThan(beforeKill);

    const second = await startCadre(env, 120_000);
    started.push(second);
    const arrived = () =>
      new Set(receiver.at('/crash').map((entry) => (entry.event.data.apiKey as { id: string }).id));
    // Deliveries the dead instance held come back once their 15 s lease has passed.
    for (let i = 0; i < 600 && [...acknowledged].some((id) => !arrived().has(id)); i++) await sleep(100);
    expect([...acknowledged].filter((id) => !arrived().has(id))).toEqual([]);
    // Deliveries the dead instance had sent but not recorded are sent again once its lease (15 s) has passed:
    // wait for that too, so the database shows each one done.
    await sleep(20_000);
    expect(await second.stop()).toBe(0);

    const all = receiver.at('/crash');
    for (const entry of all) verify(secret, entry);
    // One webhook-id per event, whichever instance sent it.
    const idsByEvent = new Map<string, Set<string>>();
    for (const entry of all) {
      const ids = idsByEvent.get(entry.event.id) ?? new Set();
      ids.add(entry.headers['webhook-id']!);
      idsByEvent.set(entry.event.id, ids);
    }
    expect([...idsByEvent.values()].filter((ids) => ids.size !== 1)).toEqual([]);
    // Repeats: only events that had reached the receiver before the kill (in flight, unanswered).
    const counts = new Map<string, number>();
    for (const entry of all) counts.set(entry.event.id, (counts.get(entry.event.id) ?? 0) + 1);
    const repeated = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    const reachedBeforeKill = new Set(all.slice(0, beforeKill).map((entry) => entry.event.id));
    expect(repeated.filter((id) => !reachedBeforeKill.has(id))).toEqual([]);
    expect([...counts.values()].every((n) => n <= 2)).toBe(true);

    // Straight from the database: the delivery of every acknowledged event succeeded (events whose change
    // committed without its answer reaching the client may still be on their way when the server stopped).
    const database = await openDatabase(
      testDb?.url ? { url: testDb.url } : { dataDir: join(dataDir, 'pgdata') },
    );
    const rows = (await database.db.execute(
      sql`SELECT e.payload->'apiKey'->>'id' AS key, d.status FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`,
    )) as unknown as { rows: Array<{ key: string; status: string }> };
    await database.close();
    const statusOf = new Map(rows.rows.map((row) => [row.key, row.status]));
    expect([...acknowledged].filter((id) => statusOf.get(id) !== 'succeeded')).toEqual([]);
    console.log(
      `[webhook-crash] ${JSON.stringify({
        acknowledged: acknowledged.size,
        receivedBeforeKill: beforeKill,
        received: all.length,
        repeated: repeated.length,
      })}`,
    );
  }, 180_000);
});
