import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyEntry, parseKeyRing } from '../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../src/lib/outbound/address-policy.js';
import { createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { type Receiver, startReceiver, verify } from './support/webhook-receiver.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const keyRing = parseKeyRing(generateKeyEntry('k1'));

/**
 * Three instances on one PostgreSQL database, each with its own connection pool and delivery worker, all
 * polling the same outbox: every event is delivered exactly once between them (FOR UPDATE SKIP LOCKED and
 * the lease), while changes are made through all three.
 */
describe('three instances on PostgreSQL deliver each event exactly once between them', () => {
  const instances: TestServer[] = [];
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    const options = {
      keyRing,
      webhooks: {
        allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance,
        worker: { pollIntervalMs: 20 },
      },
    };
    const first = await startServer(options);
    instances.push(first);
    for (let i = 0; i < 2; i++) {
      instances.push(await startServer({ ...options, database: await first.db.reopen() }));
    }
  });
  afterAll(async () => {
    // The first owns the database: it closes (and drops it) last.
    for (const instance of instances.slice(1)) {
      await instance.close();
      await instance.context.database.close();
    }
    await instances[0]?.close();
    await receiver.close();
  });

  it('300 events of three organizations, written through all three instances, each arrive once', async () => {
    const [first] = instances;
    // Each answer takes a little while, so the instances' claims overlap.
    receiver.respond('/a', (_request, response) => setTimeout(() => response.end('ok'), 5));
    receiver.respond('/b', (_request, response) => setTimeout(() => response.end('ok'), 5));
    receiver.respond('/c', (_request, response) => setTimeout(() => response.end('ok'), 5));
    const orgs: Array<{ org: TestOrganization; secret: string; path: string }> = [];
    for (const path of ['/a', '/b', '/c']) {
      const org = await createOrganization(first!);
      const res = await first!.request<{ data: { secret: string } }>('POST', '/api/v1/webhook-endpoints', {
        key: org.ownerKey,
        body: { url: receiver.url(path), eventTypes: ['api_key.created'] },
      });
      expect(res.status, res.text).toBe(201);
      orgs.push({ org, secret: res.body.data.secret, path });
    }
    const created: string[] = [];
    await Promise.all(
      Array.from({ length: 10 }, async (_, writer) => {
        for (let i = 0; i < 30; i++) {
          const { org } = orgs[(writer + i) % 3]!;
          const instance = instances[(writer + i) % instances.length]!;
          created.push((await createKey(instance, org, org.ownerId)).id);
        }
      }),
    );
    expect(created).toHaveLength(300);
    for (let i = 0; i < 600 && receiver.received.length < 300; i++) await sleep(50);
    // Time for a duplicate to show up, were there one.
    await sleep(1_500);

    const byKey = new Map<string, number>();
    for (const entry of receiver.received) {
      const { secret } = orgs.find((o) => o.path === entry.path)!;
      verify(secret, entry);
      const id = (entry.event.data.apiKey as { id: string }).id;
      byKey.set(id, (byKey.get(id) ?? 0) + 1);
    }
    expect(receiver.received).toHaveLength(300);
    expect(created.filter((id) => byKey.get(id) !== 1)).toEqual([]);
    expect(new Set(receiver.received.map((entry) => entry.headers['webhook-id'])).size).toBe(300);

    // Every instance took part (its own metrics count what it sent), and together they sent 300.
    const sent = await Promise.all(
      instances.map(async (instance) => {
        const text = await (await fetch(`${instance.url}/metrics`)).text();
        return Number(
          /^cadre_webhook_delivery_attempts_total\{outcome="succeeded"\} (\d+)$/m.exec(text)?.[1] ?? 0,
        );
      }),
    );
    expect(sent.reduce((a, b) => a + b, 0)).toBe(300);
    expect(
      sent.every((n) => n > 0),
      String(sent),
    ).toBe(true);
    console.log(`[webhook-instances] sent per instance ${JSON.stringify(sent)}`);
    // The database agrees: 300 deliveries, each with one attempt.
    const rows = (await first!.context.database.db.execute(sql`
      SELECT d.status, count(*)::int AS n, count(a.id)::int AS attempts
      FROM webhook_deliveries d LEFT JOIN webhook_delivery_attempts a ON a.delivery_id = d.id
      GROUP BY d.status`)) as unknown as { rows: Array<{ status: string; n: number; attempts: number }> };
    expect(rows.rows).toEqual([{ status: 'succeeded', n: 300, attempts: 300 }]);
  }, 120_000);
});
