import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';

// SCIM has a budget of its own per organization (docs/scim.md, "Rate limits"): one organization's sync burst
// never spends another organization's SCIM budget, nor the anonymous budget of the address it calls from.

const SCIM_READS = 5;
const ANONYMOUS_READS = 6;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    rateLimits: { scimRead: SCIM_READS, scimWrite: 3, anonymousRead: ANONYMOUS_READS },
  });
});
afterAll(() => server.close());

async function scimToken(org: TestOrganization): Promise<string> {
  const made = await server.request<{ data: { token: string } }>('POST', '/api/v1/scim/token', {
    key: org.ownerKey,
  });
  expect(made.status, made.text).toBe(201);
  return made.body.data.token;
}

const listUsers = (token: string) =>
  fetch(`${server.url}/scim/v2/Users?count=1`, { headers: { authorization: `Bearer ${token}` } });

describe('SCIM rate limits', () => {
  it("count per organization: one's burst spends neither another's nor the anonymous budget", async () => {
    const first = await scimToken(await createOrganization(server, 'team'));
    const second = await scimToken(await createOrganization(server, 'team'));

    for (let i = 0; i < SCIM_READS; i += 1) {
      const res = await listUsers(first);
      expect(res.status, await res.text()).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe(String(SCIM_READS));
    }
    // Past its budget, the first organization is refused in SCIM's own error shape, with Retry-After.
    const refused = await listUsers(first);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/scim+json');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await refused.json()) as { schemas: string[]; status: string; detail: string };
    expect(body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '429',
    });
    expect(body.detail).toContain('SCIM');
    // The refusal is counted as SCIM's, like every other 429 (docs/operations.md, the refusals metric).
    const metrics = await server.request('GET', '/metrics');
    expect(metrics.text).toMatch(
      /cadre_http_refusals_total\{status="429",code="rate_limited",cause="scim_read"\} 1\n/,
    );

    // The second organization, from the same address, has its whole budget.
    for (let i = 0; i < SCIM_READS; i += 1) expect((await listUsers(second)).status).toBe(200);
    // And the address's anonymous budget is untouched by either.
    for (let i = 0; i < ANONYMOUS_READS; i += 1) {
      const anonymous = await server.request('GET', '/auth/sso/route?email=someone@example.com');
      expect(anonymous.status, anonymous.text).toBe(200);
    }
  });
});
