import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../src/http/errors.js';
import { notFound } from '../src/http/errors.js';
import { createForeignResourceGuard, rejectForeignResource } from '../src/http/rate-limit/rate-limit.js';
import { createRedisStore } from '../src/http/rate-limit/redis-store.js';
import { createMemoryStore, type RateLimitStore } from '../src/http/rate-limit/store.js';
import { createManualClock } from '../src/lib/clock.js';
import type { Principal } from '../src/modules/auth/permissions.js';
import { expectApiError, expectRegistryError } from './support/assertions.js';
import { createKey, createOrganization, createProject, uniqueSlug } from './support/fixtures.js';
import { captureLogs } from './support/log-capture.js';
import { startServer, type TestServer } from './support/server.js';
import { type RedisServer, startRedis } from './support/servers.js';

const small = { read: 3, write: 2, anonymousRead: 2, anonymousWrite: 1, windowMs: 60_000 };
const grant = { type: 'organization', permissions: ['billing:read'] };

describe('rate limits (in-memory store)', () => {
  let server: TestServer;
  const clock = createManualClock(new Date('2026-03-01T10:00:00.000Z'));
  beforeAll(async () => {
    server = await startServer({ clock, rateLimits: small });
  });
  afterAll(() => server.close());

  it('counts reads per credential, sends RateLimit-* on every answer, and answers 429 rate_limited with Retry-After past the limit', async () => {
    const org = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      expect(res.headers.get('ratelimit-reset')).toBe('60');
      remaining.push(res.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
    expectApiError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('cache-control')).toBe('no-store');

    // Writes are a class of their own; another credential has its own budget.
    const write = await server.request('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      body: { grants: grant },
    });
    expect(write.status).toBe(200);
    expect(write.headers.get('ratelimit-limit')).toBe('2');
    const other = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    expect((await server.request('GET', '/api/v1/api-keys', { key: other.ownerKey })).status).toBe(200);

    // The window ends: the budget is back.
    clock.advance(30_000);
    expect(
      (await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey })).headers.get('retry-after'),
    ).toBe('30');
    clock.advance(30_000);
    const again = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
    expect(again.status).toBe(200);
    expect(again.headers.get('ratelimit-remaining')).toBe('2');
  });

  it('counts concurrent writes exactly: of 10 parallel creations with a budget of 2, exactly 2 succeed', async () => {
    const org = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        server.request('POST', '/api/v1/api-keys', { key: org.ownerKey, body: { grants: grant } }),
      ),
    );
    expect(results.filter((res) => res.status === 200)).toHaveLength(2);
    for (const res of results.filter((r) => r.status !== 200)) expectApiError(res, 429, 'rate_limited');
  });

  it('counts anonymous requests per client IP and answers in the registry shape under /registry', async () => {
    clock.advance(60_000);
    const first = await server.request('GET', '/registry/v1/experts/nothing-here');
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    await server.request('GET', '/registry/v1/experts/nothing-here');
    const limited = await server.request('GET', '/registry/v1/experts/nothing-here');
    expectRegistryError(limited, 429);
    expect(limited.headers.get('retry-after')).toBe('60');
    // An anonymous write: its own class, limit 1.
    expect((await server.request('POST', '/registry/v1/experts', { body: {} })).status).not.toBe(429);
    expectRegistryError(await server.request('POST', '/registry/v1/experts', { body: {} }), 429);
  });

  it('counts the admin token as one credential and exempts health probes and the OpenAPI document', async () => {
    clock.advance(60_000);
    for (let i = 0; i < 3; i++) {
      expect((await server.admin('GET', '/admin/v1/organizations/none/audit-events')).status).toBe(404);
    }
    expectApiError(
      await server.admin('GET', '/admin/v1/organizations/none/audit-events'),
      429,
      'rate_limited',
    );
    for (let i = 0; i < 5; i++) {
      for (const path of ['/healthz', '/readyz', '/openapi.json']) {
        const res = await server.request('GET', path);
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBeNull();
      }
    }
  });

  it('rejects a missing or invalid credential with 401 before counting anything', async () => {
    clock.advance(60_000);
    const org = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    expectApiError(await server.request('GET', '/api/v1/api-keys'), 401, 'unauthorized');
    expectApiError(
      await server.request('GET', '/api/v1/api-keys', { key: 'cadre_invalid' }),
      401,
      'unauthorized',
    );
    const res = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
    expect(res.headers.get('ratelimit-remaining')).toBe('2');
  });
});

describe("an organization's budget over all its credentials", () => {
  let server: TestServer;
  const clock = createManualClock(new Date('2026-03-01T10:00:00.000Z'));
  beforeAll(async () => {
    server = await startServer({
      clock,
      rateLimits: { read: 1_000, write: 3, organizationMultiple: 2, windowMs: 60_000 },
    });
  });
  afterAll(() => server.close());

  it('shares one budget (multiple × a credential’s) between every key: fresh keys bring no fresh budget', async () => {
    const org = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    const first = await createKey(server, org, org.ownerId);
    const second = await createKey(server, org, org.ownerId);
    clock.advance(60_000); // the admin token's three writes above leave the window
    const write = (key: string) => server.request('POST', '/api/v1/api-keys', { key, body: { grants: {} } });

    for (const key of [org.ownerKey, first.key]) {
      for (let i = 0; i < 3; i++) expect((await write(key)).status).toBe(422);
    }
    // The third key has its own budget left (3) but the organization's (2 × 3) is spent.
    const refused = await write(second.key);
    expectApiError(refused, 429, 'rate_limited');
    expect(refused.body).toMatchObject({
      error: {
        message:
          'Too many requests: 6 writes per 60 s for this organization (all its keys and sessions together); retry after 60 s',
      },
    });
    expect(refused.headers.get('ratelimit-limit')).toBe('6');
    expect(refused.headers.get('retry-after')).toBe('60');
    // Registry writes share it too; reads are another class.
    expectRegistryError(
      await server.request('POST', '/registry/experts', { key: second.key, body: {} }),
      429,
    );
    const read = await server.request('GET', '/api/v1/api-keys', { key: second.key });
    expect(read.status).toBe(200);
    // The headers describe the tighter budget: this key's own 1,000 reads vs the organization's 2,000.
    expect(read.headers.get('ratelimit-limit')).toBe('1000');

    // Another organization is untouched.
    const other = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    expect((await write(other.ownerKey)).status).toBe(422);

    clock.advance(60_000);
    expect((await write(second.key)).status).toBe(422);
  });
});

describe('behind a load balancer (trustProxy)', () => {
  it('counts anonymous requests per client address from X-Forwarded-For, not per proxy', async () => {
    const server = await startServer({
      trustProxy: ['127.0.0.1'],
      rateLimits: { ...small, anonymousRead: 1 },
    });
    try {
      const from = (ip: string) =>
        server.request('GET', '/registry/v1/experts/x', { headers: { 'x-forwarded-for': ip } });
      expect((await from('203.0.113.1')).status).toBe(404);
      expectRegistryError(await from('203.0.113.1'), 429);
      expect((await from('203.0.113.2')).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('counts IPv6 clients by their /64: a fresh address of the same /64 gets no fresh budget', async () => {
    const server = await startServer({
      trustProxy: ['127.0.0.1'],
      rateLimits: { ...small, anonymousRead: 2 },
    });
    try {
      const from = (ip: string) =>
        server.request('GET', '/registry/v1/experts/x', { headers: { 'x-forwarded-for': ip } });
      expect((await from('2001:db8:a:b::1')).status).toBe(404);
      expect((await from('2001:db8:a:b:ffff::2')).status).toBe(404);
      expectRegistryError(await from('2001:db8:a:b:1:2:3:4'), 429);
      expect((await from('2001:db8:a:c::1')).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('failed authentications per client address', () => {
  it('refuses an address with 429 before authentication once it has too many 401s, other addresses unaffected', async () => {
    const clock = createManualClock(new Date('2026-03-01T10:00:00.000Z'));
    const server = await startServer({
      clock,
      trustProxy: ['127.0.0.1'],
      rateLimits: { authFailures: 3, windowMs: 60_000 },
    });
    try {
      const org = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
      const from = (ip: string, key: string) =>
        server.request('GET', '/api/v1/api-keys', { key, headers: { 'x-forwarded-for': ip } });
      for (let i = 0; i < 3; i++)
        expectApiError(await from('198.51.100.7', `cadre_guess${i}`), 401, 'unauthorized');
      const refused = await from('198.51.100.7', org.ownerKey);
      expectApiError(refused, 429, 'rate_limited');
      expect(refused.headers.get('retry-after')).toBe('60');
      expect((await from('198.51.100.8', org.ownerKey)).status).toBe(200);
      clock.advance(60_000);
      expect((await from('198.51.100.7', org.ownerKey)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('rate-limit store outage', () => {
  it('fails open: requests pass uncounted (no 500), with one warning in the log', async () => {
    const { lines, logger } = captureLogs('warn');
    const broken: RateLimitStore = {
      kind: 'redis',
      hit: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
      peek: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
      reset: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
      close: async () => undefined,
    };
    const server = await startServer({
      rateLimits: small,
      rateLimitStore: broken,
      logger,
    });
    try {
      const org = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
      for (let i = 0; i < 6; i++) {
        const res = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBeNull();
      }
      const warnings = lines.filter((line) => line.includes('rate-limit store unavailable'));
      expect(warnings).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe('foreign_resource_rate_limited', () => {
  it('answers 422 for grants naming another organization’s Project, then 429 past the limit, while own Projects still work', async () => {
    const server = await startServer({ foreignResources: { limit: 3, windowMs: 60_000 } });
    try {
      const mine = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
      const theirs = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
      const own = await createProject(server, mine);
      const foreign = await createProject(server, theirs);
      const body = (projectId: string) => ({
        grants: { type: 'project', projectIds: [projectId], permissions: ['projects:operate'] },
      });
      for (let i = 0; i < 3; i++) {
        const res = await server.request('POST', '/api/v1/api-keys', {
          key: mine.ownerKey,
          body: body(foreign.project.id),
        });
        expectApiError(res, 422, 'validation_failed');
      }
      const limited = await server.request('POST', '/api/v1/api-keys', {
        key: mine.ownerKey,
        body: body(foreign.project.id),
      });
      expectApiError(limited, 429, 'foreign_resource_rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // Unknown ids count the same as foreign ones (existence elsewhere is not revealed).
      expectApiError(
        await server.request('POST', '/api/v1/api-keys', { key: mine.ownerKey, body: body('nope') }),
        429,
        'foreign_resource_rate_limited',
      );
      // Requests naming the caller's own Projects are not blocked.
      const ok = await server.request('POST', '/api/v1/api-keys', {
        key: mine.ownerKey,
        body: body(own.project.id),
      });
      expect(ok.status).toBe(200);
      // Counted per user: the other organization's owner is unaffected.
      const theirsRes = await server.request('POST', '/api/v1/api-keys', {
        key: theirs.ownerKey,
        body: body(own.project.id),
      });
      expectApiError(theirsRes, 422, 'validation_failed');
    } finally {
      await server.close();
    }
  });
});

describe('foreign_resource_rate_limited on OAuth', () => {
  it('connections listings and OAuth starts naming another organization’s Project: 404, then 429', async () => {
    const server = await startServer({ foreignResources: { limit: 2, windowMs: 60_000 } });
    try {
      const mine = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
      const theirs = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
      const foreign = await createProject(server, theirs);
      const environmentId = foreign.environments[0]!.id;
      const list = `/api/v1/projects/${foreign.project.id}/environments/${environmentId}/connections`;
      expectApiError(await server.request('GET', list, { key: mine.ownerKey }), 404, 'not_found');
      const start = `/api/oauth/start/oidc?projectId=${foreign.project.id}&environmentId=${environmentId}`;
      expectApiError(await server.request('GET', start, { key: mine.ownerKey }), 404, 'not_found');
      expectApiError(
        await server.request('GET', list, { key: mine.ownerKey }),
        429,
        'foreign_resource_rate_limited',
      );
      // The owner of the project is not affected.
      expect((await server.request('GET', list, { key: theirs.ownerKey })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('rejectForeignResource (the helper OAuth start and connection listings call)', () => {
  it('throws the service’s own not-found error up to the limit, then foreign_resource_rate_limited', async () => {
    const clock = createManualClock();
    const guard = createForeignResourceGuard({
      store: createMemoryStore(),
      clock,
      options: { limit: 2, windowMs: 60_000 },
      log: () => {
        throw new Error('no log expected');
      },
    });
    const principal = { kind: 'apiKey', apiKeyId: 'k1', userId: 'u1', organizationId: 'o1' } as Principal;
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) {
      await rejectForeignResource(guard, principal, notFound('Project p')).catch((error: ApiError) =>
        codes.push(error.code),
      );
    }
    expect(codes).toEqual(['not_found', 'not_found', 'foreign_resource_rate_limited']);
    clock.advance(60_000);
    await expect(rejectForeignResource(guard, principal, notFound('Project p'))).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('Redis store', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('counts atomically across clients: 200 concurrent hits from two connections get 200 distinct counts', async () => {
    const a = createRedisStore({ url: redis.url, prefix: 'atomic:', onError: () => undefined });
    const b = createRedisStore({ url: redis.url, prefix: 'atomic:', onError: () => undefined });
    try {
      await waitReady(a);
      await waitReady(b);
      const now = Date.now();
      const hits = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).hit('k', 1_000, 60_000, now)),
      );
      expect(new Set(hits.map((hit) => hit.count)).size).toBe(200);
      expect(Math.max(...hits.map((hit) => hit.count))).toBe(200);
      // A window later, every one of them has left it.
      expect((await a.hit('k', 1_000, 60_000, now + 60_000)).count).toBe(1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('shares limits between two app instances, and fails open when Redis is gone', async () => {
    const store = createRedisStore({
      url: redis.url,
      prefix: `apps-${Date.now()}:`,
      onError: () => undefined,
    });
    await waitReady(store);
    const first = await startServer({ rateLimits: small, rateLimitStore: store });
    const second = await startServer({
      database: first.context.database,
      rateLimits: small,
      rateLimitStore: store,
    });
    try {
      const org = await createOrganization(first, 'personal', uniqueSlug(), { planLimits: 'plan' });
      const statuses: number[] = [];
      for (const server of [first, second, first, second]) {
        statuses.push((await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      await redis.stop();
      const res = await second.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
      expect(res.status).toBe(200);
    } finally {
      await second.app.close();
      await first.close();
      await store.close();
    }
  });
});

async function waitReady(store: RateLimitStore): Promise<void> {
  for (let i = 0; i < 50; i++) {
    try {
      await store.hit('ready', 1, 1_000, Date.now());
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('Redis store never became ready');
}
