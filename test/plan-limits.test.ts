import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, publish, uniqueName } from './registry/helpers.js';
import { expectApiError, expectRegistryError } from './support/assertions.js';
import { createOrganization, uniqueSlug } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

type Limits = {
  data: { organizationId: string; planKey: string; limits: Record<string, number>; overridden: string[] };
};
type Usage = { data: { counters: Array<{ key: string; used: number; limit: number }> } };

const keyBody = (name: string) => ({
  name,
  grants: { type: 'organization', permissions: ['api-keys:read'] },
});

describe('plan limits are enforced at the write that would exceed them', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const freeOrganization = () => createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
  const createKey = (key: string, name: string) =>
    server.request<{ data: { id: string } }>('POST', '/api/v1/api-keys', { key, body: keyBody(name) });

  it('the free plan holds 5 active API keys: the 6th is refused with plan_limit_exceeded; revoking one frees a place', async () => {
    const org = await freeOrganization();
    const created: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await createKey(org.ownerKey, `k${i}`);
      expect(res.status, res.text).toBe(200);
      created.push(res.body.data.id);
    }
    const refused = await createKey(org.ownerKey, 'one-too-many');
    expectApiError(refused, 403, 'plan_limit_exceeded');
    expect(refused.body).toMatchObject({
      error: {
        message:
          'The Free plan allows 5 active API keys; this organization has 5. Upgrade the plan or revoke a key.',
        details: [{ path: 'apiKeys', message: 'limit 5 (plan free)' }],
      },
    });
    expect(
      (await server.request('DELETE', `/api/v1/api-keys/${created[0]}`, { key: org.ownerKey })).status,
    ).toBe(200);
    expect((await createKey(org.ownerKey, 'in-its-place')).status).toBe(200);
    const usage = await server.request<Usage>('GET', `/api/v1/organizations/${org.id}/billing/usage`, {
      key: org.ownerKey,
    });
    expect(usage.body.data.counters.find((c) => c.key === 'apiKeys')).toEqual({
      key: 'apiKeys',
      used: 5,
      limit: 5,
    });
  });

  it('20 parallel creates at the limit minus one: exactly one succeeds', async () => {
    const org = await freeOrganization();
    for (let i = 0; i < 3; i++) expect((await createKey(org.ownerKey, `pre${i}`)).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createKey(org.ownerKey, `race${i}`)),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200))
      expectApiError(answer, 403, 'plan_limit_exceeded');
  });

  it('Expert versions per period, in the registry error shape; an operator override raises it', async () => {
    const org = await freeOrganization();
    const set = await server.admin<Limits>('PUT', `/admin/v1/organizations/${org.id}/limits`, {
      expertVersions: 2,
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data).toMatchObject({ planKey: 'free', overridden: ['expertVersions'] });
    expect(set.body.data.limits).toMatchObject({ expertVersions: 2, apiKeys: 5 });
    const name = uniqueName();
    expect((await publish(server, org.ownerKey, expertBody(name, '1.0.0'))).status).toBe(200);
    expect((await publish(server, org.ownerKey, expertBody(name, '1.1.0'))).status).toBe(200);
    const refused = await publish(server, org.ownerKey, expertBody(name, '1.2.0'));
    expectRegistryError(refused, 403);
    // The limit is the operator's, not the plan's: the message says whose, and reads as one sentence.
    expect(refused.body).toMatchObject({
      reason:
        "This organization's limit is 2 Expert versions published per period (set by an operator; the Free plan allows 50); this organization has 2. Upgrade the plan or wait for the next period. [expertVersions: limit 2 (plan free, set by an operator)]",
    });
    await server.admin('PUT', `/admin/v1/organizations/${org.id}/limits`, { expertVersions: 3 });
    expect((await publish(server, org.ownerKey, expertBody(name, '1.2.0'))).status).toBe(200);
  });

  it('operators read and override limits; null returns a counter to the plan; usage shows the same limits', async () => {
    const org = await freeOrganization();
    const path = `/admin/v1/organizations/${org.slug}/limits`;
    expect((await server.admin<Limits>('GET', path)).body.data).toEqual({
      organizationId: org.id,
      planKey: 'free',
      limits: { apiRequests: 10_000, expertVersions: 50, apiKeys: 5, connections: 3 },
      overridden: [],
    });
    await server.admin('PUT', path, { apiKeys: 12, connections: 0 });
    const usage = await server.request<Usage>('GET', `/api/v1/organizations/${org.id}/billing/usage`, {
      key: org.ownerKey,
    });
    expect(Object.fromEntries(usage.body.data.counters.map((c) => [c.key, c.limit]))).toEqual({
      apiRequests: 10_000,
      expertVersions: 50,
      apiKeys: 12,
      connections: 0,
    });
    const cleared = await server.admin<Limits>('PUT', path, { apiKeys: null });
    expect(cleared.body.data.limits.apiKeys).toBe(5);
    expect(cleared.body.data.overridden).toEqual(['connections']);
    expectApiError(await server.admin('PUT', path, { apiKeys: -1 }), 422, 'validation_failed');
    expectApiError(await server.admin('PUT', path, { seats: 3 }), 422, 'validation_failed');
    expectApiError(
      await server.admin('PUT', '/admin/v1/organizations/no-such-org/limits', {}),
      404,
      'not_found',
    );
    expectApiError(
      await server.request('PUT', path, { key: org.ownerKey, body: { apiKeys: 1000 } }),
      401,
      'unauthorized',
    );
  });
});
