import { request as httpRequest } from 'node:http';
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../src/lib/clock.js';
import { billingLocalSessions, usageApiRequests } from '../src/modules/billing/billing.tables.js';
import { expectApiError } from './support/assertions.js';
import {
  addMember,
  createKey,
  createOrganization,
  type TestOrganization,
  uniqueSlug,
} from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
let org: TestOrganization;
let other: TestOrganization;

const base = (o: TestOrganization) => `/api/v1/organizations/${o.id}/billing`;
const checkoutBody = (planKey = 'plus') => ({
  planKey,
  successUrl: 'https://console.example.com/billing/success',
  cancelUrl: 'https://console.example.com/billing/cancel',
});
let keyCounter = 0;
const freshKey = () => `key-${Date.now()}-${keyCounter++}`;

type CheckoutAnswer = { data: { sessionId: string; url: string; expiresAt: string } };

beforeAll(async () => {
  // Flushed by hand in the tests, so what is in the table before a flush is known.
  server = await startServer({ billing: { provider: 'local', usageFlushMs: 3_600_000 } });
  org = await createOrganization(server, 'team', uniqueSlug(), { planLimits: 'plan' });
  other = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
});
afterAll(() => server.close());

describe('GET /api/v1/billing/plans', () => {
  it('lists the active plans, provider-neutral, cheapest first', async () => {
    const res = await server.request<{ data: { plans: Array<Record<string, unknown>> } }>(
      'GET',
      '/api/v1/billing/plans',
      { key: org.ownerKey },
    );
    expect(res.status).toBe(200);
    const plans = res.body.data.plans;
    expect(plans.map((plan) => plan.key)).toEqual(['free', 'plus', 'team']);
    const amounts = plans.map((plan) => plan.amount as number);
    expect([...amounts].sort((a, b) => a - b)).toEqual(amounts);
    expect(plans[1]).toEqual({
      key: 'plus',
      name: 'Plus',
      description: expect.any(String),
      amount: 900,
      currency: 'usd',
      interval: 'month',
      features: expect.any(Array),
      limits: {
        apiRequests: expect.any(Number),
        expertVersions: expect.any(Number),
        apiKeys: expect.any(Number),
        connections: expect.any(Number),
      },
    });
    expect(JSON.stringify(plans)).not.toMatch(/price_|stripe/i);
  });

  it('needs authentication and billing:read', async () => {
    expectApiError(await server.request('GET', '/api/v1/billing/plans'), 401, 'unauthorized');
    expectApiError(
      await server.request('GET', '/api/v1/billing/plans', { key: 'cadre_nope' }),
      401,
      'unauthorized',
    );
    const narrow = await createKey(server, org, org.ownerId, {
      type: 'organization',
      permissions: ['api-keys:read'],
    });
    expectApiError(
      await server.request('GET', '/api/v1/billing/plans', { key: narrow.key }),
      403,
      'forbidden',
    );
  });
});

describe('subscription and usage', () => {
  it('answers status none on the free plan before any checkout', async () => {
    const res = await server.request('GET', `${base(other)}/subscription`, { key: other.ownerKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        organizationId: other.id,
        planKey: 'free',
        status: 'none',
        currentPeriodStart: null,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        provider: 'local',
        testMode: true,
      },
    });
  });

  it('counts authenticated management requests (batched) and active API keys, with the plan limits', async () => {
    const fresh = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    const revoked = await createKey(server, fresh, fresh.ownerId);
    await server.request('DELETE', `/api/v1/api-keys/${revoked.id}`, { key: fresh.ownerKey });
    for (let i = 0; i < 4; i++) await server.request('GET', '/api/v1/billing/plans', { key: fresh.ownerKey });
    await server.request('GET', '/api/v1/billing/plans'); // anonymous: not counted
    const rows = () =>
      server.context.database.db
        .select()
        .from(usageApiRequests)
        .where(eq(usageApiRequests.organizationId, fresh.id));
    expect(await rows()).toEqual([]); // counted in memory: no write per request
    await server.context.billing.meter.flush();
    const flushed = await rows();
    expect(flushed).toHaveLength(1); // one row per organization and hour
    expect(flushed[0]?.count).toBe(5);
    const res = await server.request<{
      data: {
        periodStart: string;
        periodEnd: string;
        counters: Array<{ key: string; used: number; limit: number }>;
      };
    }>('GET', `/api/v1/organizations/${fresh.slug}/billing/usage`, { key: fresh.ownerKey });
    expect(res.status).toBe(200);
    const counters = Object.fromEntries(res.body.data.counters.map((c) => [c.key, c]));
    expect(res.body.data.counters.map((c) => c.key)).toEqual([
      'apiRequests',
      'expertVersions',
      'apiKeys',
      'connections',
    ]);
    // 1 revoke + 4 plan reads (the usage read itself is counted after it answers).
    expect(counters.apiRequests).toEqual({ key: 'apiRequests', used: 5, limit: 10_000 });
    expect(counters.apiKeys).toEqual({ key: 'apiKeys', used: 1, limit: 5 });
    expect(counters.expertVersions?.used).toBe(0);
    expect(counters.connections?.used).toBe(0);
    const start = new Date(res.body.data.periodStart);
    expect(start.getUTCDate()).toBe(1);
    expect(new Date(res.body.data.periodEnd) > new Date()).toBe(true);
    // Unflushed counts of this instance are included in reads.
    const again = await server.request<{ data: { counters: Array<{ key: string; used: number }> } }>(
      'GET',
      `${base(fresh)}/usage`,
      { key: fresh.ownerKey },
    );
    expect(again.body.data.counters[0]?.used).toBe(6);
  });

  it('answers 404 for another organization (id or slug) and 401 without credentials', async () => {
    for (const path of ['subscription', 'usage']) {
      expectApiError(
        await server.request('GET', `${base(other)}/${path}`, { key: org.ownerKey }),
        404,
        'not_found',
      );
      const bySlug = `/api/v1/organizations/${other.slug}/billing/${path}`;
      expectApiError(await server.request('GET', bySlug, { key: org.ownerKey }), 404, 'not_found');
      expectApiError(
        await server.request('GET', `/api/v1/organizations/nope/billing/${path}`, { key: org.ownerKey }),
        404,
        'not_found',
      );
      expectApiError(await server.request('GET', `${base(org)}/${path}`), 401, 'unauthorized');
    }
  });

  it('lets members read but not manage billing', async () => {
    const memberId = await addMember(server, org, 'member');
    const member = await createKey(server, org, memberId);
    expect((await server.request('GET', `${base(org)}/subscription`, { key: member.key })).status).toBe(200);
    const res = await server.request('POST', `${base(org)}/checkout`, {
      key: member.key,
      headers: { 'idempotency-key': freshKey() },
      body: checkoutBody(),
    });
    expectApiError(res, 403, 'forbidden');
    const portal = await server.request('POST', `${base(org)}/portal`, {
      key: member.key,
      headers: { 'idempotency-key': freshKey() },
      body: { returnUrl: 'https://console.example.com/' },
    });
    expectApiError(portal, 403, 'forbidden');
  });
});

describe('POST …/billing/checkout', () => {
  it('creates a local checkout session whose URL is a Cadre page', async () => {
    const res = await server.request<CheckoutAnswer>('POST', `${base(org)}/checkout`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': freshKey() },
      body: checkoutBody(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.body.data.url).toBe(`${server.url}/billing/local/checkout/${res.body.data.sessionId}`);
    expect(new Date(res.body.data.expiresAt) > new Date()).toBe(true);
    const page = await fetch(res.body.data.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('Subscribe to Plus');
  });

  it('validates the body and the Idempotency-Key, storing nothing for a refused request', async () => {
    const key = freshKey();
    const send = (body: unknown, headers: Record<string, string> = { 'idempotency-key': key }) =>
      server.request('POST', `${base(org)}/checkout`, { key: org.ownerKey, headers, body });
    for (const bad of [
      { ...checkoutBody(), successUrl: '/relative' },
      { ...checkoutBody(), successUrl: 'https://user:secret@example.com/' },
      { ...checkoutBody(), cancelUrl: 'ftp://example.com/' },
      { ...checkoutBody(), cancelUrl: 'javascript:alert(1)' },
      { ...checkoutBody(), planKey: 'platinum' },
      { ...checkoutBody(), planKey: 'free' },
      { ...checkoutBody(), extra: true },
      { planKey: 'plus' },
    ]) {
      expectApiError(await send(bad), 422, 'validation_failed');
    }
    expectApiError(await send(checkoutBody(), {}), 422, 'validation_failed');
    expectApiError(
      await send(checkoutBody(), { 'idempotency-key': 'x'.repeat(256) }),
      422,
      'validation_failed',
    );
    expectApiError(await send(checkoutBody(), { 'idempotency-key': 'tab\there' }), 422, 'validation_failed');
    // Nothing was stored under the key: a valid request with it runs normally.
    const ok = await send(checkoutBody());
    expect(ok.status).toBe(200);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    // 255 printable characters are a valid key.
    expect((await send(checkoutBody(), { 'idempotency-key': '~'.repeat(255) })).status).toBe(200);
  });

  it('replays the first answer for the same key and body, 422 for another body', async () => {
    const key = freshKey();
    const first = await server.request<CheckoutAnswer>('POST', `${base(org)}/checkout`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': key },
      body: checkoutBody(),
    });
    // Same body with keys in another order, and through the slug: the same request.
    const { planKey, successUrl, cancelUrl } = checkoutBody();
    const replay = await server.request<CheckoutAnswer>(
      'POST',
      `/api/v1/organizations/${org.slug}/billing/checkout`,
      {
        key: org.ownerKey,
        headers: { 'idempotency-key': key },
        body: { cancelUrl, successUrl, planKey },
      },
    );
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const reused = await server.request('POST', `${base(org)}/checkout`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': key },
      body: checkoutBody('team'),
    });
    expectApiError(reused, 422, 'idempotency_key_reused');
    // Another user (the admin) with the same key is another scope.
    const adminId = await addMember(server, org, 'admin');
    const admin = await createKey(server, org, adminId);
    const theirs = await server.request<CheckoutAnswer>('POST', `${base(org)}/checkout`, {
      key: admin.key,
      headers: { 'idempotency-key': key },
      body: checkoutBody('team'),
    });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.sessionId).not.toBe(first.body.data.sessionId);
  });

  it('50 parallel checkouts with one key create exactly one provider session', async () => {
    const key = freshKey();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        server.request<CheckoutAnswer>('POST', `${base(org)}/checkout`, {
          key: org.ownerKey,
          headers: { 'idempotency-key': key },
          body: checkoutBody('team'),
        }),
      ),
    );
    const ok = results.filter((res) => res.status === 200);
    const inUse = results.filter((res) => res.status === 409);
    expect(ok.length + inUse.length).toBe(50);
    for (const res of inUse) expectApiError(res, 409, 'idempotency_key_in_use');
    expect(ok.filter((res) => res.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(new Set(ok.map((res) => res.body.data.sessionId)).size).toBe(1);
    const sessions = await server.context.database.db
      .select({ n: count() })
      .from(billingLocalSessions)
      .where(and(eq(billingLocalSessions.planKey, 'team'), eq(billingLocalSessions.userId, org.ownerId)));
    expect(sessions[0]?.n).toBe(1);
    // Once done, the key replays.
    const later = await server.request<CheckoutAnswer>('POST', `${base(org)}/checkout`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': key },
      body: checkoutBody('team'),
    });
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body.data.sessionId).toBe(ok[0]?.body.data.sessionId);
  });

  it('answers 404 for another organization, 401 without credentials', async () => {
    const res = await server.request('POST', `${base(other)}/checkout`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': freshKey() },
      body: checkoutBody(),
    });
    expectApiError(res, 404, 'not_found');
    const anonymous = await server.request('POST', `${base(org)}/checkout`, {
      headers: { 'idempotency-key': freshKey() },
      body: checkoutBody(),
    });
    expectApiError(anonymous, 401, 'unauthorized');
  });
});

describe('local provider pages', () => {
  it('confirming a checkout activates the plan for one month; the portal cancels at period end', async () => {
    const buyer = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    const created = await server.request<CheckoutAnswer>('POST', `${base(buyer)}/checkout`, {
      key: buyer.ownerKey,
      headers: { 'idempotency-key': freshKey() },
      body: checkoutBody('plus'),
    });
    const confirm = await fetch(`${created.body.data.url}/confirm`, { method: 'POST', redirect: 'manual' });
    expect(confirm.status).toBe(303);
    expect(confirm.headers.get('location')).toBe(checkoutBody().successUrl);
    // Confirming twice changes nothing and lands on the same page.
    const twice = await fetch(`${created.body.data.url}/confirm`, { method: 'POST', redirect: 'manual' });
    expect(twice.headers.get('location')).toBe(checkoutBody().successUrl);

    const sub = await server.request<{ data: Record<string, unknown> }>(
      'GET',
      `${base(buyer)}/subscription`,
      {
        key: buyer.ownerKey,
      },
    );
    expect(sub.body.data).toMatchObject({
      planKey: 'plus',
      status: 'active',
      cancelAtPeriodEnd: false,
      provider: 'local',
    });
    const start = new Date(sub.body.data.currentPeriodStart as string);
    const end = new Date(sub.body.data.currentPeriodEnd as string);
    expect(end.getUTCMonth()).toBe((start.getUTCMonth() + 1) % 12);

    const usage = await server.request<{
      data: { periodStart: string; counters: Array<{ key: string; limit: number }> };
    }>('GET', `${base(buyer)}/usage`, { key: buyer.ownerKey });
    expect(usage.body.data.periodStart).toBe(start.toISOString());
    expect(usage.body.data.counters.find((c) => c.key === 'apiRequests')?.limit).toBe(100_000);

    // A second checkout while subscribed: 409, and the key is not spent.
    const again = await server.request('POST', `${base(buyer)}/checkout`, {
      key: buyer.ownerKey,
      headers: { 'idempotency-key': freshKey() },
      body: checkoutBody('team'),
    });
    expectApiError(again, 409, 'conflict');

    const portal = await server.request<{ data: { sessionId: string; url: string } }>(
      'POST',
      `${base(buyer)}/portal`,
      {
        key: buyer.ownerKey,
        headers: { 'idempotency-key': freshKey() },
        body: { returnUrl: 'http://localhost:5173/settings/billing' },
      },
    );
    expect(portal.status).toBe(200);
    expect(portal.body.data.url).toBe(`${server.url}/billing/local/portal/${portal.body.data.sessionId}`);
    expect(await (await fetch(portal.body.data.url)).text()).toContain('Cancel at period end');
    const cancel = await fetch(`${portal.body.data.url}/cancel`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(cancel.status).toBe(303);
    expect(cancel.headers.get('location')).toBe('http://localhost:5173/settings/billing');
    const after = await server.request<{ data: Record<string, unknown> }>(
      'GET',
      `${base(buyer)}/subscription`,
      {
        key: buyer.ownerKey,
      },
    );
    expect(after.body.data).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
  });

  it('answers 404 for unknown sessions', async () => {
    expectApiError(await server.request('GET', '/billing/local/checkout/lcs_nothing'), 404, 'not_found');
    expectApiError(
      await server.request('POST', '/billing/local/checkout/lcs_nothing/confirm'),
      404,
      'not_found',
    );
    expectApiError(await server.request('GET', '/billing/local/portal/lps_nothing'), 404, 'not_found');
  });
});

describe('local provider over time', () => {
  it('expires unconfirmed checkouts after 24 h and ends an unrenewed subscription after its month', async () => {
    const clock = createManualClock(new Date());
    const timed = await startServer({ database: server.db.database, clock });
    try {
      const buyer = await createOrganization(timed, 'personal', uniqueSlug(), { planLimits: 'plan' });
      const create = () =>
        timed.request<CheckoutAnswer>('POST', `${base(buyer)}/checkout`, {
          key: buyer.ownerKey,
          headers: { 'idempotency-key': freshKey() },
          body: checkoutBody('plus'),
        });
      const stale = await create();
      clock.advance(24 * 3_600_000 + 1);
      expect((await fetch(stale.body.data.url)).status).toBe(410);
      const late = await fetch(`${stale.body.data.url}/confirm`, { method: 'POST', redirect: 'manual' });
      expect(late.status).toBe(410);
      const none = await timed.request<{ data: { status: string } }>('GET', `${base(buyer)}/subscription`, {
        key: buyer.ownerKey,
      });
      expect(none.body.data.status).toBe('none');

      const fresh = await create();
      await fetch(`${fresh.body.data.url}/confirm`, { method: 'POST', redirect: 'manual' });
      clock.advance(32 * 86_400_000);
      const ended = await timed.request<{ data: Record<string, unknown> }>(
        'GET',
        `${base(buyer)}/subscription`,
        {
          key: buyer.ownerKey,
        },
      );
      expect(ended.body.data).toMatchObject({ planKey: 'plus', status: 'canceled' });
      const usage = await timed.request<{ data: { counters: Array<{ key: string; limit: number }> } }>(
        'GET',
        `${base(buyer)}/usage`,
        { key: buyer.ownerKey },
      );
      expect(usage.body.data.counters.find((c) => c.key === 'apiRequests')?.limit).toBe(10_000);
      // Ended: a new checkout is allowed again.
      expect((await create()).status).toBe(200);
    } finally {
      await timed.app.close();
    }
  });
});

describe('review findings', () => {
  it('a CR/LF inside a return URL is stored as the URL parser reads it: confirming answers 303, retries too', async () => {
    const created = await server.request<CheckoutAnswer>('POST', `${base(org)}/checkout`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': freshKey() },
      body: {
        planKey: 'plus',
        successUrl: 'https://console.example.com/billing/\r\nsuccess',
        cancelUrl: 'https://console.example.com/billing/cancel\n',
      },
    });
    expect(created.status, created.text).toBe(200);
    const [row] = await server.context.database.db
      .select()
      .from(billingLocalSessions)
      .where(eq(billingLocalSessions.id, created.body.data.sessionId));
    expect(row?.successUrl).toBe('https://console.example.com/billing/success');
    expect(row?.cancelUrl).toBe('https://console.example.com/billing/cancel');
    for (let attempt = 0; attempt < 2; attempt++) {
      const confirm = await fetch(`${created.body.data.url}/confirm`, { method: 'POST', redirect: 'manual' });
      expect(confirm.status).toBe(303);
      expect(confirm.headers.get('location')).toBe('https://console.example.com/billing/success');
    }
    const portal = await server.request<{ data: { url: string } }>('POST', `${base(org)}/portal`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': freshKey() },
      body: { returnUrl: 'https://console.example.com/\r\nback' },
    });
    expect(portal.status, portal.text).toBe(200);
    const cancel = await fetch(`${portal.body.data.url}/cancel`, { method: 'POST', redirect: 'manual' });
    expect(cancel.status).toBe(303);
    expect(cancel.headers.get('location')).toBe('https://console.example.com/back');
  });

  it('checkout and portal URLs never take their host from the Host header', async () => {
    const fresh = await createOrganization(server, 'team', uniqueSlug(), { planLimits: 'plan' });
    // fetch() does not let a caller choose Host; node:http does, as any client can.
    const post = (path: string, body: unknown) =>
      new Promise<{ status: number; body: { data: { url: string } } }>((resolve, reject) => {
        const req = httpRequest(`${server.url}${path}`, {
          method: 'POST',
          headers: {
            host: 'evil.example.com',
            authorization: `Bearer ${fresh.ownerKey}`,
            'content-type': 'application/json',
            'idempotency-key': freshKey(),
          },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end(JSON.stringify(body));
      });
    const created = await post(`${base(fresh)}/checkout`, checkoutBody());
    expect(created.status).toBe(200);
    expect(new URL(created.body.data.url).origin).toBe(server.url);
    const portal = await post(`${base(fresh)}/portal`, { returnUrl: 'https://console.example.com/' });
    expect(portal.status).toBe(200);
    expect(new URL(portal.body.data.url).origin).toBe(server.url);
  });
});

describe('the local provider is marked as a test mode', () => {
  it('in the subscription answer and on its checkout page', async () => {
    const fresh = await createOrganization(server, 'personal', uniqueSlug(), { planLimits: 'plan' });
    const subscription = await server.request<{ data: { provider: string; testMode: boolean } }>(
      'GET',
      `${base(fresh)}/subscription`,
      { key: fresh.ownerKey },
    );
    expect(subscription.body.data).toMatchObject({ provider: 'local', testMode: true });
    const created = await server.request<CheckoutAnswer>('POST', `${base(fresh)}/checkout`, {
      key: fresh.ownerKey,
      headers: { 'idempotency-key': freshKey() },
      body: checkoutBody(),
    });
    const page = await (await fetch(created.body.data.url)).text();
    expect(page).toContain('<strong>Test mode</strong>: no payment is taken.');
  });
});
