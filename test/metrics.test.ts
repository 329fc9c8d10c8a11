import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timedOAuthFetch } from '../src/modules/metrics/instrument.js';
import { createMetrics } from '../src/modules/metrics/metrics.js';
import { expertBody, keyPath, published } from './registry/helpers.js';
import { expectApiError } from './support/assertions.js';
import { createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

/** The value of one sample line of the exposition text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const matches = Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`));
    if (matches) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics on the main port', () => {
  let server: TestServer;
  let org: TestOrganization;
  const scrape = async () => {
    const res = await server.request('GET', '/metrics');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  beforeAll(async () => {
    server = await startServer({ rateLimits: { read: 1_000 } });
    org = await createOrganization(server);
  });
  afterAll(() => server.close());

  it('counts requests by face, route pattern and status class — never by raw URL', async () => {
    await published(server, org.ownerKey, expertBody('metered'));
    await server.request('GET', keyPath('metered@1.0.0'));
    await server.request('GET', keyPath('metered@1.0.0'));
    await server.request('GET', keyPath('no-such-expert-4f2a'));
    await server.request('GET', '/nowhere-7c1e');
    const text = await scrape();
    const read = { face: 'registry', route: '/registry/experts/:expertKey', method: 'GET' };
    expect(sample(text, 'cadre_http_request_duration_seconds_count', { ...read, status: '2xx' })).toBe(2);
    expect(sample(text, 'cadre_http_request_duration_seconds_count', { ...read, status: '4xx' })).toBe(1);
    expect(
      sample(text, 'cadre_http_request_duration_seconds_count', { route: 'unmatched', status: '4xx' }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('no-such-expert-4f2a');
    expect(text).not.toContain('nowhere-7c1e');
    expect(sample(text, 'cadre_build_info', { version: '0.1.0' })).toBe(1);
  });

  it('reports the registry cache, the API-key cache, the database pool and query latency', async () => {
    await published(server, org.ownerKey, expertBody('cached-one'));
    const before = await scrape();
    const hitsBefore = sample(before, 'cadre_registry_cache_events_total', { event: 'hit' }) ?? 0;
    const missesBefore = sample(before, 'cadre_registry_cache_events_total', { event: 'miss' }) ?? 0;
    await server.request('GET', keyPath('cached-one@1.0.0')); // miss, then stored
    await server.request('GET', keyPath('cached-one@1.0.0')); // hit
    await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
    const text = await scrape();
    expect(sample(text, 'cadre_registry_cache_events_total', { event: 'hit' })).toBe(hitsBefore + 1);
    expect(sample(text, 'cadre_registry_cache_events_total', { event: 'miss' })).toBe(missesBefore + 1);
    // Publishing went through the change bus: this instance received the name's invalidation.
    expect(sample(text, 'cadre_registry_cache_events_total', { event: 'invalidation' })).toBeGreaterThan(0);
    expect(sample(text, 'cadre_api_key_cache_total', { result: 'hit' })).toBeGreaterThan(0);
    expect(sample(text, 'cadre_api_key_cache_total', { result: 'miss' })).toBeGreaterThan(0);
    expect(sample(text, 'cadre_db_pool_connections', { state: 'waiting' })).toBe(0);
    expect(sample(text, 'cadre_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'cadre_db_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(sample(text, 'cadre_event_loop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('times calls to the billing provider', async () => {
    const res = await server.request('POST', `/api/v1/organizations/${org.id}/billing/checkout`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': 'metrics-checkout-1' },
      body: { planKey: 'plus', successUrl: 'https://app.test/ok', cancelUrl: 'https://app.test/no' },
    });
    expect(res.status, res.text).toBe(200);
    const text = await scrape();
    const labels = { provider: 'local', operation: 'checkout', outcome: 'ok' };
    expect(sample(text, 'cadre_provider_call_duration_seconds_count', labels)).toBe(1);
  });

  it('counts rate-limit refusals by code and caller class', async () => {
    const limited = await startServer({ rateLimits: { read: 2 } });
    try {
      const other = await createOrganization(limited);
      for (let i = 0; i < 3; i++) await limited.request('GET', '/api/v1/api-keys', { key: other.ownerKey });
      const res = await limited.request('GET', '/metrics');
      expect(res.status).toBe(200);
      const labels = { status: '429', code: 'rate_limited', cause: 'credential_read' };
      expect(sample(res.text, 'cadre_http_refusals_total', labels)).toBe(1);
    } finally {
      await limited.close();
    }
  });

  it('counts shed requests by cause, and is itself never shed', async () => {
    const shedding = await startServer({ overload: { heapRatio: 0.000_001 } });
    try {
      expectApiError(await shedding.request('GET', '/api/v1/api-keys'), 503, 'service_unavailable');
      const res = await shedding.request('GET', '/metrics');
      expect(res.status).toBe(200);
      const labels = { status: '503', code: 'service_unavailable', cause: 'memory' };
      expect(sample(res.text, 'cadre_http_refusals_total', labels)).toBe(1);
    } finally {
      await shedding.close();
    }
  });

  it.each([
    ['x-forwarded-for', '203.0.113.9'],
    ['x-real-ip', '203.0.113.9'],
    ['forwarded', 'for=203.0.113.9'],
    ['x-forwarded-host', 'metrics.example.com'],
    ['x-forwarded-proto', 'https'],
  ])(
    'is refused to a request that came through a proxy (%s), even from loopback, without a token',
    async (name, value) => {
      const res = await server.request('GET', '/metrics', { headers: { [name]: value } });
      expectApiError(res, 403, 'forbidden');
      expect(res.body).toMatchObject({ error: { message: expect.stringContaining('CADRE_METRICS_TOKEN') } });
    },
  );
});

describe('GET /metrics with CADRE_METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789';
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ metrics: { token } });
  });
  afterAll(() => server.close());

  it('answers only the token, in constant time, whatever the address', async () => {
    expectApiError(await server.request('GET', '/metrics'), 401, 'unauthorized');
    expectApiError(
      await server.request('GET', '/metrics', { key: 'metrics-token-wrong-000000' }),
      401,
      'unauthorized',
    );
    const res = await server.request('GET', '/metrics', {
      key: token,
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('cadre_http_request_duration_seconds');
  });
});

describe('metrics turned off', () => {
  it('serves no /metrics', async () => {
    const server = await startServer({ metrics: { enabled: false } });
    try {
      expectApiError(await server.request('GET', '/metrics'), 404, 'not_found');
    } finally {
      await server.close();
    }
  });
});

describe('OAuth provider calls', () => {
  it('are timed by operation, and an answer of 5xx counts as a failed call', async () => {
    let status = 200;
    const provider = createServer((_request, response) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const { port } = provider.address() as { port: number };
    const metrics = createMetrics({
      version: 'test',
      eventLoopDelayMs: () => 0,
      database: {
        kind: 'test',
        stats: () => ({ total: 0, idle: 0, waiting: 0 }),
        observeQueries: () => undefined,
      },
    });
    const timed = timedOAuthFetch(fetch, metrics.providerCall);
    try {
      await timed(`http://127.0.0.1:${port}/.well-known/openid-configuration`);
      await timed(`http://127.0.0.1:${port}/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r' }),
      });
      status = 503;
      const answer = await timed(`http://127.0.0.1:${port}/token/revocation`, {
        method: 'POST',
        body: new URLSearchParams({ token: 't' }),
      });
      expect(answer.status).toBe(503); // the caller still reads the provider's answer
      const { body } = await metrics.render();
      const count = 'cadre_provider_call_duration_seconds_count';
      expect(sample(body, count, { provider: 'oauth', operation: 'discovery', outcome: 'ok' })).toBe(1);
      expect(sample(body, count, { operation: 'refresh_token', outcome: 'ok' })).toBe(1);
      expect(sample(body, count, { operation: 'revocation', outcome: 'error' })).toBe(1);
      expect(body).not.toContain(`${port}`);
    } finally {
      provider.close();
    }
  });
});
