import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../src/http/rate-limit/redis-store.js';
import type { CircuitState, RateLimitStore } from '../src/http/rate-limit/store.js';
import { createOrganization, uniqueSlug } from './support/fixtures.js';
import { captureLogs } from './support/log-capture.js';
import { startServer, type TestServer } from './support/server.js';
import { type RedisServer, startRedis } from './support/servers.js';

/** The rejection of one `hit`, or undefined when it answered. */
async function failureOf(store: RateLimitStore): Promise<(Error & { code?: string }) | undefined> {
  try {
    await store.hit(`k:${uniqueSlug()}`, 10, 60_000, Date.now());
    return undefined;
  } catch (error) {
    return error as Error & { code?: string };
  }
}

describe('a hung Redis (SIGSTOP): the circuit breaker', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    redis.resume();
    await redis.stop();
  });

  it('opens after consecutive timeouts, fails at once while open, probes after the cool-down, and closes on success', async () => {
    const changes: CircuitState[] = [];
    const store = createRedisStore({
      url: redis.url,
      commandTimeoutMs: 200,
      breakerFailures: 3,
      breakerCooldownMs: 1_000,
      onCircuitChange: (state) => changes.push(state),
    });
    try {
      // The store connects in the background; until then a command fails at once (no offline queue).
      await expect.poll(() => failureOf(store), { timeout: 5_000 }).toBeUndefined();
      redis.pause();
      // The first three wait for ioredis' command timeout: the circuit does not know yet.
      for (let i = 0; i < 3; i++) expect((await failureOf(store))?.message).toMatch(/timed out/i);
      expect(store.circuit?.()).toBe('open');
      // Open: refused by the breaker itself, without a command sent to the hung server.
      const shortCut = await failureOf(store);
      expect(shortCut?.code).toBe('ECIRCUITOPEN');

      // After the cool-down one probe goes through; while Redis still hangs it opens the circuit again.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await failureOf(store))?.message).toMatch(/timed out/i);
      expect(store.circuit?.()).toBe('open');
      expect((await failureOf(store))?.code).toBe('ECIRCUITOPEN');

      redis.resume();
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await failureOf(store)).toBeUndefined();
      expect(store.circuit?.()).toBe('closed');
      expect(changes).toEqual(['open', 'half_open', 'open', 'half_open', 'closed']);
    } finally {
      redis.resume();
      await store.close();
    }
  });

  it('keeps requests answered while open (uncounted, fail open) and shows the state in /metrics', async () => {
    const store = createRedisStore({
      url: redis.url,
      commandTimeoutMs: 200,
      breakerFailures: 2,
      breakerCooldownMs: 60_000,
    });
    const { logger } = captureLogs('warn');
    let server: TestServer | undefined;
    try {
      await expect.poll(() => failureOf(store), { timeout: 5_000 }).toBeUndefined();
      server = await startServer({ rateLimits: { read: 1_000 }, rateLimitStore: store, logger });
      const org = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
      const circuitLine = async () =>
        (await server!.request('GET', '/metrics')).text
          .split('\n')
          .filter((line) => line.startsWith('cadre_rate_limit_store_circuit{'));
      expect(await circuitLine()).toEqual([
        'cadre_rate_limit_store_circuit{state="closed"} 1',
        'cadre_rate_limit_store_circuit{state="open"} 0',
        'cadre_rate_limit_store_circuit{state="half_open"} 0',
      ]);
      const counted = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
      expect(counted.headers.get('ratelimit-limit')).toBe('1000');

      redis.pause();
      for (let i = 0; i < 5; i++) {
        const res = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBeNull();
      }
      expect(store.circuit?.()).toBe('open');
      expect(await circuitLine()).toContain('cadre_rate_limit_store_circuit{state="open"} 1');
    } finally {
      redis.resume();
      await server?.close();
      await store.close();
    }
  });
});
