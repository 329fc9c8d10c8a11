import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../src/http/rate-limit/redis-store.js';
import { createMemoryStore, type RateLimitStore, SUB_WINDOWS } from '../src/http/rate-limit/store.js';
import { createManualClock } from '../src/lib/clock.js';
import { expectApiError } from './support/assertions.js';
import { createOrganization } from './support/fixtures.js';
import { startServer } from './support/server.js';
import { type RedisServer, startRedis } from './support/servers.js';

/** A small seeded generator, so a failing schedule can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Request times: steady stretches, idle gaps and bursts, many of them just before and after window edges. */
function schedule(seed: number, windowMs: number, length: number): number[] {
  const next = random(seed);
  const times: number[] = [];
  let now = 1_772_000_000_000 + Math.floor(next() * windowMs);
  while (times.length < length) {
    const roll = next();
    if (roll < 0.2) {
      // A burst right before a multiple of the window (where a fixed window would reset), then right after.
      const edge = (Math.floor(now / windowMs) + 1) * windowMs;
      for (let i = 0; i < 8; i++) times.push(edge - 1 - Math.floor(next() * 3));
      for (let i = 0; i < 8; i++) times.push(edge + Math.floor(next() * 3));
      now = edge + 3;
    } else if (roll < 0.3) {
      now += Math.floor(next() * windowMs * 1.5);
    } else {
      now += Math.floor(next() * (windowMs / 10));
      times.push(now);
    }
  }
  return times.sort((x, y) => x - y);
}

/**
 * Offers every request of `times` to `store`; checks that no window of `windowMs` holds more than `limit`
 * admitted requests, and that a refusal happens only when the last windowMs + windowMs / SUB_WINDOWS held
 * `limit` admitted requests (the documented tolerance: a request may count that much longer, never shorter).
 */
async function checkSchedule(
  store: RateLimitStore,
  key: string,
  limit: number,
  windowMs: number,
  times: number[],
) {
  const admitted: number[] = [];
  let refused = 0;
  for (const t of times) {
    const hit = await store.hit(key, limit, windowMs, t);
    if (hit.allowed) {
      admitted.push(t);
      continue;
    }
    refused++;
    const recent = admitted.filter((a) => a > t - windowMs - windowMs / SUB_WINDOWS).length;
    expect(
      recent,
      `refused at ${t} with ${recent} admitted in the window and its tolerance`,
    ).toBeGreaterThanOrEqual(limit);
    expect(hit.retryAtMs).toBeGreaterThan(t);
  }
  for (const [i, start] of admitted.entries()) {
    const inWindow = admitted.slice(i).filter((a) => a < start + windowMs).length;
    expect(inWindow, `${inWindow} admitted in the window starting ${start}`).toBeLessThanOrEqual(limit);
  }
  // The schedules are dense enough that limits were reached, so the property was exercised.
  expect(refused).toBeGreaterThan(0);
  return admitted;
}

/** The defect this replaces: `limit` requests just before a fixed window's edge and `limit` just after. */
async function checkBoundary(store: RateLimitStore, key: string) {
  const windowMs = 60_000;
  const edge = 1_772_000_040_000 - (1_772_000_040_000 % windowMs) + windowMs;
  for (let i = 0; i < 3; i++) expect((await store.hit(key, 3, windowMs, edge - 500)).allowed).toBe(true);
  const after = await store.hit(key, 3, windowMs, edge + 500);
  expect(after).toMatchObject({ allowed: false, count: 3, retryAtMs: edge - 500 + windowMs });
  expect((await store.hit(key, 3, windowMs, edge - 501 + windowMs)).allowed).toBe(false);
  expect((await store.hit(key, 3, windowMs, edge - 500 + windowMs)).allowed).toBe(true);
}

describe('sliding window (memory store)', () => {
  it('admits at most the limit in any window, across window edges, for 20 random schedules', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const windowMs = seed % 2 ? 1_000 : 60_000;
      const limit = 3 + (seed % 7) * 3;
      await checkSchedule(createMemoryStore(), `k${seed}`, limit, windowMs, schedule(seed, windowMs, 400));
    }
  });

  it('refuses the second burst just past a fixed window edge, until the first burst is a window old', async () => {
    await checkBoundary(createMemoryStore(), 'edge');
  });

  it('a client sending steadily above its limit still gets the limit per window', async () => {
    const store = createMemoryStore();
    const admitted = await checkSchedule(
      store,
      'steady',
      10,
      1_000,
      Array.from({ length: 600 }, (_, i) => 1_772_000_000_000 + i * 10),
    );
    // 6 s at 100 requests/s against 10/s: every window gets its 10 (within the sub-window tolerance).
    expect(admitted.length).toBeGreaterThanOrEqual(55);
  });
});

describe('sliding window (Redis store, real redis-server)', () => {
  let redis: RedisServer;
  let store: RateLimitStore;
  beforeAll(async () => {
    redis = await startRedis();
    store = await connected();
  });
  const connected = async () => {
    const client = createRedisStore({ url: redis.url, prefix: 'window:', onError: () => undefined });
    for (let i = 0; ; i++) {
      try {
        await client.hit('ready', 1, 1_000, Date.now());
        return client;
      } catch (error) {
        if (i > 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  afterAll(async () => {
    await store.close();
    await redis.stop();
  });

  it('admits at most the limit in any window, and agrees with the memory store request for request', async () => {
    for (let seed = 101; seed <= 106; seed++) {
      const windowMs = seed % 2 ? 1_000 : 60_000;
      const limit = 4 + (seed % 3) * 4;
      const times = schedule(seed, windowMs, 250);
      const shared = await checkSchedule(store, `k${seed}`, limit, windowMs, times);
      const local = await checkSchedule(createMemoryStore(), `k${seed}`, limit, windowMs, times);
      expect(shared).toEqual(local);
    }
  });

  it('refuses the second burst just past a fixed window edge', async () => {
    await checkBoundary(store, 'edge');
  });

  it('concurrent hits from two connections admit exactly the limit', async () => {
    const other = await connected();
    try {
      const now = Date.now();
      const hits = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? store : other).hit('together', 37, 60_000, now)),
      );
      expect(hits.filter((hit) => hit.allowed)).toHaveLength(37);
    } finally {
      await other.close();
    }
  });
});

describe('over HTTP', () => {
  it('a client cannot get twice its limit by straddling a window edge; Retry-After says when the first burst has aged out', async () => {
    const clock = createManualClock(new Date('2026-03-01T10:00:59.000Z'));
    const server = await startServer({ clock, rateLimits: { read: 3, windowMs: 60_000 } });
    try {
      const org = await createOrganization(server);
      for (let i = 0; i < 3; i++) {
        expect((await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey })).status).toBe(200);
      }
      clock.advance(2_000); // 10:01:01, past the minute a fixed window would have reset at
      const refused = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
      expectApiError(refused, 429, 'rate_limited');
      expect(refused.headers.get('retry-after')).toBe('58');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      clock.advance(58_000);
      const again = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
      expect(again.status).toBe(200);
      expect(again.headers.get('ratelimit-remaining')).toBe('2');
    } finally {
      await server.close();
    }
  });
});
