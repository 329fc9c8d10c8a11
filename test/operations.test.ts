import { describe, expect, it } from 'vitest';
import { expectApiError } from './support/assertions.js';
import { createOrganization, uniqueSlug } from './support/fixtures.js';
import { captureLogs } from './support/log-capture.js';
import { ADMIN_TOKEN, startServer } from './support/server.js';

describe('readiness', () => {
  it('answers /readyz 503 with Retry-After once the database is unreachable, while /healthz stays up', async () => {
    const server = await startServer();
    try {
      expect((await server.request('GET', '/readyz')).status).toBe(200);
      await server.db.database.close();
      const res = await server.request('GET', '/readyz');
      expectApiError(res, 503, 'service_unavailable');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await server.request('GET', '/healthz')).status).toBe(200);
    } finally {
      await server.app.close();
    }
  });
});

describe('response headers', () => {
  it('every answer carries X-Request-Id and nosniff, management answers no-store, errors included', async () => {
    const server = await startServer();
    try {
      const org = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
      const answers = {
        ok: await server.request('GET', '/api/v1/billing/plans', { key: org.ownerKey }),
        unauthorized: await server.request('GET', '/api/v1/billing/plans'),
        invalid: await server.request('GET', '/api/v1/api-keys?limit=0', { key: org.ownerKey }),
        unknownRoute: await server.request('GET', '/api/v1/nothing-here'),
        admin: await server.admin('GET', `/admin/v1/organizations/${org.id}/audit-events`),
      };
      expect(Object.values(answers).map((res) => res.status)).toEqual([200, 401, 422, 404, 200]);
      for (const res of Object.values(answers)) {
        expect(res.headers.get('x-request-id')).toMatch(/^req_/);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
      // Public registry reads are revalidated with their ETag, not refused to caches.
      const registry = await server.request('GET', '/registry/experts');
      const missing = await server.request('GET', '/registry/experts/no-such-expert');
      expect([registry.status, missing.status]).toEqual([200, 404]);
      expect(registry.headers.get('cache-control')).toBe('no-cache');
      expect(missing.headers.get('cache-control')).toBeNull();
      for (const res of [registry, missing]) {
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      }
    } finally {
      await server.close();
    }
  });
});

describe('logs', () => {
  it('are JSON and never contain keys, admin tokens, authorization headers or OAuth codes', async () => {
    const { lines, logger } = captureLogs('trace');
    const server = await startServer({ logger });
    try {
      const org = await createOrganization(server, 'team', uniqueSlug(), { planLimits: 'plan' });
      const created = await server.request<{ data: { key: string } }>('POST', '/api/v1/api-keys', {
        key: org.ownerKey,
        body: { grants: { type: 'organization', permissions: ['billing:read'] } },
      });
      await server.request(
        'GET',
        '/api/v1/api-keys?access_token=at-secret-value&%63ode=enc0ded-code&client_secret=cs-secret-value',
        { key: created.body.data.key },
      );
      const checkout = await server.request<{ data: { url: string } }>(
        'POST',
        `/api/v1/organizations/${org.id}/billing/checkout`,
        {
          key: org.ownerKey,
          headers: { 'idempotency-key': 'log-test-1' },
          body: { planKey: 'plus', successUrl: 'https://app.test/ok', cancelUrl: 'https://app.test/no' },
        },
      );
      const capability = new URL(checkout.body.data.url).pathname;
      await server.request('GET', capability);
      await server.request('GET', '/api/v1/api-keys?code=oauth-secret-code&state=st4te-value', {
        key: created.body.data.key,
        headers: { cookie: 'cadre_session=session-secret-value' },
      });
      await server.request('GET', '/api/v1/api-keys', {
        key: 'cadre_wrongwrongwrongwrongwrongwrongwrongwron',
      });
      const log = lines.join('\n');
      const entries = lines.map((line) => JSON.parse(line) as { msg: string; status?: number; url?: string });
      const requests = entries.filter((entry) => entry.msg === 'request');
      // unknown query parameters are refused (422)
      expect(requests.map((entry) => entry.status)).toEqual([201, 200, 422, 200, 200, 422, 401]);
      // Each request line names its request, as the answer's X-Request-Id does.
      for (const entry of requests) expect(entry).toMatchObject({ reqId: expect.stringMatching(/^req_/) });
      expect(new Set(requests.map((entry) => (entry as { reqId?: string }).reqId)).size).toBe(
        requests.length,
      );
      expect(requests[2]!.url).toBe(
        '/api/v1/api-keys?access_token=[redacted]&%63ode=[redacted]&client_secret=[redacted]',
      );
      // A local checkout page's URL is its capability: logged as its route, without the session id.
      expect(requests[4]!.url).toBe('/billing/local/checkout/:sessionId');
      expect(requests[5]!.url).toBe('/api/v1/api-keys?code=[redacted]&state=[redacted]');
      for (const secret of [
        org.ownerKey,
        created.body.data.key,
        ADMIN_TOKEN,
        'oauth-secret-code',
        'st4te-value',
        'at-secret-value',
        'enc0ded-code',
        'cs-secret-value',
        capability.split('/').pop()!,
        'session-secret-value',
      ]) {
        expect(log).not.toContain(secret);
      }
      expect(log).toContain('[redacted]');
    } finally {
      await server.close();
    }
  });

  it('never contain a capability token, on near-miss URLs that match no route or on malformed ones', async () => {
    const { lines, logger } = captureLogs();
    const server = await startServer({ logger });
    try {
      const org = await createOrganization(server, 'team', uniqueSlug(), { planLimits: 'plan' });
      const checkout = await server.request<{ data: { url: string; sessionId: string } }>(
        'POST',
        `/api/v1/organizations/${org.id}/billing/checkout`,
        {
          key: org.ownerKey,
          headers: { 'idempotency-key': 'log-near-miss' },
          body: { planKey: 'plus', successUrl: 'https://app.test/ok', cancelUrl: 'https://app.test/no' },
        },
      );
      const { sessionId } = checkout.body.data;
      expect(sessionId).toMatch(/^lcs_/);
      const before = lines.length;
      const urls = [
        `/billing/local/checkout//${sessionId}`,
        `/billing/local/CHECKOUT/${sessionId}`,
        `/billing/local/checkout/${sessionId}/confirm/x`,
        `/api/v1/nothing/${sessionId}?api%2Dkey=key-secret-value`,
        // A malformed path parameter (FST_ERR_BAD_URL): answered and logged by frameworkErrors (no route hook runs).
        `/billing/local/checkout/${sessionId}%E0%A4%A`,
      ];
      const statuses = [];
      for (const url of urls) statuses.push((await server.request('GET', url)).status);
      expect(statuses).toEqual([404, 404, 404, 404, 400]);
      const requests = lines
        .slice(before)
        .map((line) => JSON.parse(line) as { msg: string; url?: string; status?: number })
        .filter((entry) => entry.msg === 'request');
      expect(requests.map((entry) => [entry.status, entry.url])).toEqual([
        [404, '/billing/local/checkout//lcs_[redacted]'],
        [404, '/billing/local/CHECKOUT/lcs_[redacted]'],
        [404, '/billing/local/checkout/lcs_[redacted]/confirm/x'],
        [404, '/api/v1/nothing/lcs_[redacted]?api%2Dkey=[redacted]'],
        [400, '/billing/local/checkout/lcs_[redacted]'],
      ]);
      const log = lines.join('\n');
      expect(log).not.toContain(sessionId.slice(4));
      expect(log).not.toContain('key-secret-value');
    } finally {
      await server.close();
    }
  });
});
