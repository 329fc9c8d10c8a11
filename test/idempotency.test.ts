import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../src/lib/clock.js';
import { canonicalJson, createIdempotency } from '../src/modules/idempotency/idempotency.js';
import { idempotencyKeys } from '../src/modules/idempotency/idempotency.tables.js';
import { createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
let org: TestOrganization;
const clock = createManualClock(new Date('2026-03-01T00:00:00.000Z'));

beforeAll(async () => {
  server = await startServer({ billing: { provider: 'local' } });
  org = await createOrganization(server, 'personal');
});
afterAll(() => server.close());

describe('idempotency store', () => {
  it('canonicalises bodies: key order does not matter, values do', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, 2] }, b: 1 }),
    );
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson({ a: undefined, b: 1 })).toBe(canonicalJson({ b: 1 }));
  });

  it('lets a new request take over a key whose first run died (still "running" after the abandon delay)', async () => {
    const store = createIdempotency({ database: server.context.database, clock, abandonAfterMs: 60_000 });
    const scope = { organizationId: org.id, userId: org.ownerId, endpoint: 'test.takeover', key: 'k1' };
    let release!: () => void;
    const stuck = store.run(
      scope,
      { a: 1 },
      () =>
        new Promise((resolve) => {
          release = () => resolve({ status: 200, body: { first: true } });
        }),
    );
    await expect(store.run(scope, { a: 1 }, async () => ({ status: 200, body: {} }))).rejects.toMatchObject({
      code: 'idempotency_key_in_use',
    });
    clock.advance(61_000);
    const second = await store.run(scope, { a: 1 }, async () => ({ status: 200, body: { second: true } }));
    expect(second).toEqual({ status: 200, json: '{"second":true}', replayed: false });
    release();
    await stuck;
    const replay = await store.run(scope, { a: 1 }, async () => ({ status: 500, body: {} }));
    expect(replay.replayed).toBe(true);
  });

  it('releases the key when the work throws, so the client can retry', async () => {
    const store = createIdempotency({ database: server.context.database, clock });
    const scope = { organizationId: org.id, userId: org.ownerId, endpoint: 'test.release', key: 'k2' };
    await expect(
      store.run(scope, {}, async () => Promise.reject(new Error('provider down'))),
    ).rejects.toThrow('provider down');
    const retry = await store.run(scope, {}, async () => ({ status: 200, body: { ok: true } }));
    expect(retry).toEqual({ status: 200, json: '{"ok":true}', replayed: false });
  });

  it('sweeps expired keys', async () => {
    const store = createIdempotency({ database: server.context.database, clock, ttlMs: 1000 });
    const scope = { organizationId: org.id, userId: org.ownerId, endpoint: 'test.sweep', key: 'k3' };
    await store.run(scope, { v: 1 }, async () => ({ status: 200, body: {} }));
    clock.advance(1001);
    const remaining = () =>
      server.context.database.db
        .select({ key: idempotencyKeys.key })
        .from(idempotencyKeys)
        .where(eq(idempotencyKeys.endpoint, 'test.sweep'));
    expect(await remaining()).toHaveLength(1);
    await store.sweep();
    expect(await remaining()).toHaveLength(0);
  });
});

describe('a replay is the same bytes', () => {
  // Every idempotent route (docs/billing.md "Idempotency"): the replay answers byte for byte what the first
  // answer wrote, members in the same order, as Stripe's replays do.
  const routes = [
    {
      path: 'checkout',
      body: {
        planKey: 'plus',
        successUrl: 'https://console.example.com/billing/success',
        cancelUrl: 'https://console.example.com/billing/cancel',
      },
    },
    { path: 'portal', body: { returnUrl: 'https://console.example.com/billing' } },
  ];
  for (const route of routes) {
    it(`POST …/billing/${route.path}`, async () => {
      const send = () =>
        server.request('POST', `/api/v1/organizations/${org.slug}/billing/${route.path}`, {
          key: org.ownerKey,
          headers: { 'idempotency-key': `bytes-${route.path}` },
          body: route.body,
        });
      const first = await send();
      expect(first.status, first.text).toBe(200);
      const replay = await send();
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.status).toBe(first.status);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
    });
  }
});
