import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/assertions.js';
import { createOrganization, uniqueSlug } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

type Usage = { data: { counters: Array<{ key: string; used: number; limit: number }> } };

describe('the apiRequests plan limit is enforced per request', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  /** A free organization whose apiRequests limit an operator set to `limit`. */
  async function organizationAllowed(limit: number) {
    const org = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    const set = await server.admin('PUT', `/admin/v1/organizations/${org.slug}/limits`, {
      apiRequests: limit,
    });
    expect(set.status, set.text).toBe(200);
    return org;
  }
  const listKeys = (key: string) => server.request('GET', '/api/v1/api-keys', { key });

  it('refuses past the limit with 429 plan_quota_exceeded naming the limit and plan; billing stays reachable', async () => {
    const org = await organizationAllowed(5);
    for (let i = 0; i < 5; i++) expect((await listKeys(org.ownerKey)).status).toBe(200);
    const refused = await listKeys(org.ownerKey);
    expectApiError(refused, 429, 'plan_quota_exceeded');
    expect(refused.body).toMatchObject({
      error: {
        message: expect.stringMatching(
          /^This organization's limit is 5 API requests per period \(set by an operator; the Free plan allows 10000\); this organization has used them\. Upgrade the plan or wait for the next period \(\d{4}-/,
        ),
        details: [{ path: 'apiRequests', message: 'limit 5 (plan free, set by an operator)' }],
      },
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(31 * 24 * 3600);

    // The way out stays open: plans, usage, checkout are billing routes.
    const usage = await server.request<Usage>('GET', `/api/v1/organizations/${org.id}/billing/usage`, {
      key: org.ownerKey,
    });
    expect(usage.status, usage.text).toBe(200);
    // The refusal was not counted as a request served.
    expect(usage.body.data.counters.find((c) => c.key === 'apiRequests')).toEqual({
      key: 'apiRequests',
      used: 5,
      limit: 5,
    });
    expect((await server.request('GET', '/api/v1/billing/plans', { key: org.ownerKey })).status).toBe(200);
  });

  it("keeps other organizations unaffected, and an operator's raise takes effect at once", async () => {
    const spent = await organizationAllowed(1);
    const other = await organizationAllowed(100);
    expect((await listKeys(spent.ownerKey)).status).toBe(200);
    expectApiError(await listKeys(spent.ownerKey), 429, 'plan_quota_exceeded');
    expect((await listKeys(other.ownerKey)).status).toBe(200);
    await server.admin('PUT', `/admin/v1/organizations/${spent.slug}/limits`, { apiRequests: 3 });
    expect((await listKeys(spent.ownerKey)).status).toBe(200);
  });

  it('counts authenticated registry writes on both faces, not registry reads', async () => {
    const org = await organizationAllowed(2);
    const publish = (path: string) => server.request('POST', path, { key: org.ownerKey, body: {} });
    expect((await publish('/registry/experts')).status).toBe(400);
    // Reads of the public registry are not API requests, with a key or without.
    for (let i = 0; i < 3; i++) {
      expect((await server.request('GET', '/registry/experts', { key: org.ownerKey })).status).toBe(200);
      expect((await server.request('GET', '/api/registry/v1/experts', { key: org.ownerKey })).status).toBe(
        200,
      );
    }
    // A validation failure: 422 on the Perstack-compatible face (its API's status), 400 on /registry.
    expect((await publish('/api/registry/v1/experts')).status).toBe(422);
    const refused = await publish('/registry/experts');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 429, error: 'Too Many Requests' });
    const usage = await server.request<Usage>('GET', `/api/v1/organizations/${org.id}/billing/usage`, {
      key: org.ownerKey,
    });
    expect(usage.body.data.counters.find((c) => c.key === 'apiRequests')).toEqual({
      key: 'apiRequests',
      used: 2,
      limit: 2,
    });
  });

  it('counts exactly under concurrency: 20 parallel requests against a limit of 7, seven are served', async () => {
    const org = await organizationAllowed(7);
    const answers = await Promise.all(Array.from({ length: 20 }, () => listKeys(org.ownerKey)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(7);
    expect(statuses.filter((status) => status === 429)).toHaveLength(13);
  });

  it('applies the plan: a free organization has 10,000 per period, shown in usage', async () => {
    const org = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    expect((await listKeys(org.ownerKey)).status).toBe(200);
    const usage = await server.request<Usage>('GET', `/api/v1/organizations/${org.id}/billing/usage`, {
      key: org.ownerKey,
    });
    expect(usage.body.data.counters.find((c) => c.key === 'apiRequests')).toEqual({
      key: 'apiRequests',
      used: 1,
      limit: 10_000,
    });
  });
});
