import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../src/lib/clock.js';
import { expectApiError } from './support/assertions.js';
import { createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { type StripeStandIn, startStripeStandIn } from './support/stripe-stand-in.js';

const SECRET_KEY = 'sk_test_cadre_stand_in';
const WEBHOOK_SECRET = 'whsec_cadre_test_secret';
const prices = { plus: 'price_plus_monthly', team: 'price_team_monthly' };

let stand: StripeStandIn;
let server: TestServer;
let org: TestOrganization;
const clock = createManualClock(new Date());
const sdk = new Stripe(SECRET_KEY);
let eventCounter = 0;

const checkoutBody = (planKey = 'plus') => ({
  planKey,
  successUrl: 'https://console.example.com/billing/success?session={CHECKOUT_SESSION_ID}',
  cancelUrl: 'https://console.example.com/billing',
});

const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

function event(type: string, object: Record<string, unknown>, created = nowSeconds()) {
  return JSON.stringify({
    id: `evt_test_${++eventCounter}`,
    object: 'event',
    api_version: '2025-01-01',
    created,
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  });
}

function signed(payload: string, options: { secret?: string; timestamp?: number } = {}) {
  return sdk.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    timestamp: options.timestamp ?? nowSeconds(),
  });
}

const deliver = (payload: string, signature: string | undefined) =>
  server.request<{ data: { received: boolean; duplicate: boolean } }>(
    'POST',
    '/api/v1/billing/webhooks/stripe',
    {
      rawBody: payload,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        ...(signature === undefined ? {} : { 'stripe-signature': signature }),
      },
    },
  );

const subscription = () =>
  server.request<{ data: Record<string, unknown> }>(
    'GET',
    `/api/v1/organizations/${org.id}/billing/subscription`,
    {
      key: org.ownerKey,
    },
  );

function subscriptionObject(status: string, overrides: Record<string, unknown> = {}) {
  const start = nowSeconds();
  return {
    id: 'sub_test_1',
    object: 'subscription',
    customer: 'cus_test_1',
    status,
    cancel_at_period_end: false,
    metadata: { organizationId: org.id, planKey: 'plus' },
    items: {
      object: 'list',
      data: [
        {
          id: 'si_1',
          current_period_start: start,
          current_period_end: start + 30 * 86_400,
          price: { id: prices.team },
        },
      ],
    },
    ...overrides,
  };
}

beforeAll(async () => {
  stand = await startStripeStandIn();
  server = await startServer({
    clock,
    billing: {
      provider: 'stripe',
      stripe: {
        secretKey: SECRET_KEY,
        webhookSecret: WEBHOOK_SECRET,
        prices,
        host: '127.0.0.1',
        port: stand.port,
        protocol: 'http',
      },
    },
  });
  org = await createOrganization(server, 'team');
});
afterAll(async () => {
  await server.close();
  await stand.close();
});

describe('Stripe checkout through the official SDK', () => {
  it('creates a subscription checkout session with a derived Stripe Idempotency-Key', async () => {
    stand.requests.length = 0;
    const res = await server.request<{ data: { sessionId: string; url: string; expiresAt: string } }>(
      'POST',
      `/api/v1/organizations/${org.id}/billing/checkout`,
      { key: org.ownerKey, headers: { 'idempotency-key': 'stripe-checkout-1' }, body: checkoutBody() },
    );
    expect(res.status).toBe(200);
    expect(res.body.data.sessionId).toMatch(/^cs_test_/);
    expect(res.body.data.url).toBe(`https://checkout.stripe.test/c/pay/${res.body.data.sessionId}`);
    expect(stand.requests).toHaveLength(1);
    const sent = stand.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/checkout/sessions');
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(sent.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(sent.headers['stripe-version']).toEqual(expect.any(String));
    const stripeKey = sent.headers['idempotency-key'] as string;
    expect(stripeKey).toMatch(/^cadre_[0-9a-f]{56}$/);
    expect(stripeKey).not.toContain('stripe-checkout-1');
    expect(sent.form).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': prices.plus,
      'line_items[0][quantity]': '1',
      success_url: checkoutBody().successUrl,
      cancel_url: checkoutBody().cancelUrl,
      client_reference_id: org.id,
      customer_email: `owner@${org.slug}.test`,
      'metadata[organizationId]': org.id,
      'metadata[planKey]': 'plus',
      'subscription_data[metadata][organizationId]': org.id,
    });

    // A replay answers from Cadre's store: no second call to Stripe.
    const replay = await server.request('POST', `/api/v1/organizations/${org.id}/billing/checkout`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': 'stripe-checkout-1' },
      body: checkoutBody(),
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(res.body);
    expect(stand.requests).toHaveLength(1);
  });

  it('50 parallel checkouts with one key reach Stripe once', async () => {
    stand.requests.length = 0;
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        server.request<{ data: { sessionId: string } }>(
          'POST',
          `/api/v1/organizations/${org.id}/billing/checkout`,
          {
            key: org.ownerKey,
            headers: { 'idempotency-key': 'stripe-parallel' },
            body: checkoutBody('team'),
          },
        ),
      ),
    );
    expect(results.every((res) => res.status === 200 || res.status === 409)).toBe(true);
    const ok = results.filter((res) => res.status === 200);
    expect(new Set(ok.map((res) => res.body.data.sessionId)).size).toBe(1);
    expect(stand.requests.filter((req) => req.path === '/v1/checkout/sessions')).toHaveLength(1);
  });

  it('answers 503 when Stripe fails, releases the key, and a retry with it succeeds with the same Stripe key', async () => {
    stand.requests.length = 0;
    stand.failNext(1, 400);
    const failed = await server.request('POST', `/api/v1/organizations/${org.id}/billing/checkout`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': 'stripe-retry' },
      body: checkoutBody(),
    });
    expectApiError(failed, 503, 'service_unavailable');
    expect(failed.headers.get('retry-after')).toBe('5');
    expect(failed.text).not.toContain('stand-in');
    const retried = await server.request('POST', `/api/v1/organizations/${org.id}/billing/checkout`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': 'stripe-retry' },
      body: checkoutBody(),
    });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(stand.requests).toHaveLength(2);
    expect(stand.requests[0]!.headers['idempotency-key']).toBe(stand.requests[1]!.headers['idempotency-key']);
  });

  it('answers 409 idempotency_key_in_use while the first request is still at Stripe, then replays it', async () => {
    const send = () =>
      server.request<{ data: { sessionId: string } }>(
        'POST',
        `/api/v1/organizations/${org.id}/billing/checkout`,
        {
          key: org.ownerKey,
          headers: { 'idempotency-key': 'stripe-slow' },
          body: checkoutBody(),
        },
      );
    const release = stand.holdNext();
    const first = send();
    await stand.held;
    const during = await send();
    expectApiError(during, 409, 'idempotency_key_in_use');
    expect(during.headers.get('retry-after')).toBe('1');
    release();
    const done = await first;
    expect(done.status).toBe(200);
    const after = await send();
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.body).toEqual(done.body);
  });

  it('forgets keys after 24 hours: the same key then runs as a new request', async () => {
    const send = (planKey: string) =>
      server.request<{ data: { sessionId: string } }>(
        'POST',
        `/api/v1/organizations/${org.id}/billing/checkout`,
        {
          key: org.ownerKey,
          headers: { 'idempotency-key': 'stripe-day-old' },
          body: checkoutBody(planKey),
        },
      );
    expect((await send('plus')).status).toBe(200);
    clock.advance(23 * 3_600_000);
    expectApiError(await send('team'), 422, 'idempotency_key_reused');
    clock.advance(3_600_000);
    const reused = await send('team');
    expect(reused.status).toBe(200);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses the portal (409) until the organization is a Stripe customer', async () => {
    const res = await server.request('POST', `/api/v1/organizations/${org.id}/billing/portal`, {
      key: org.ownerKey,
      headers: { 'idempotency-key': 'portal-early' },
      body: { returnUrl: 'https://console.example.com/billing' },
    });
    expectApiError(res, 409, 'conflict');
  });
});

describe('Stripe webhooks', () => {
  it('rejects forged, tampered, unsigned and stale deliveries', async () => {
    const payload = event('customer.subscription.updated', subscriptionObject('active'));
    expectApiError(await deliver(payload, signed(payload, { secret: 'whsec_forged' })), 400, 'bad_request');
    const tampered = payload.replace('"active"', '"canceled"');
    expectApiError(await deliver(tampered, signed(payload)), 400, 'bad_request');
    expectApiError(await deliver(payload, undefined), 400, 'bad_request');
    expectApiError(await deliver(payload, 't=1,v1=deadbeef'), 400, 'bad_request');
    const stale = signed(payload, { timestamp: nowSeconds() - 301 });
    expectApiError(await deliver(payload, stale), 400, 'bad_request');
    expect((await subscription()).body.data.status).toBe('none');
  });

  it('applies checkout completion and subscription events to the projection', async () => {
    clock.advance(1000);
    const completed = event('checkout.session.completed', {
      id: 'cs_test_1',
      object: 'checkout.session',
      client_reference_id: org.id,
      customer: 'cus_test_1',
      subscription: 'sub_test_1',
      payment_status: 'paid',
      metadata: { organizationId: org.id, planKey: 'plus' },
    });
    const res = await deliver(completed, signed(completed));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { received: true, duplicate: false } });
    expect((await subscription()).body.data).toMatchObject({
      planKey: 'plus',
      status: 'active',
      provider: 'stripe',
    });

    clock.advance(1000);
    const updated = event(
      'customer.subscription.updated',
      subscriptionObject('active', { cancel_at_period_end: true }),
    );
    expect((await deliver(updated, signed(updated))).status).toBe(200);
    const sub = (await subscription()).body.data;
    // The plan comes from the price id (CADRE_STRIPE_PRICES), the period from the subscription item.
    expect(sub).toMatchObject({
      planKey: 'team',
      status: 'active',
      cancelAtPeriodEnd: true,
      provider: 'stripe',
    });
    expect(sub.currentPeriodStart).toBe(new Date(nowSeconds() * 1000).toISOString());

    // Now a customer: the portal opens for it.
    stand.requests.length = 0;
    const portal = await server.request<{ data: { sessionId: string; url: string } }>(
      'POST',
      `/api/v1/organizations/${org.id}/billing/portal`,
      {
        key: org.ownerKey,
        headers: { 'idempotency-key': 'portal-1' },
        body: { returnUrl: 'https://console.example.com/billing' },
      },
    );
    expect(portal.status).toBe(200);
    expect(portal.body.data.url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_test_/);
    expect(stand.requests[0]).toMatchObject({
      path: '/v1/billing_portal/sessions',
      form: { customer: 'cus_test_1', return_url: 'https://console.example.com/billing' },
    });
    expect(stand.requests[0]!.headers['idempotency-key']).toMatch(/^cadre_/);
  });

  it('ignores duplicate deliveries and out-of-order events', async () => {
    clock.advance(1000);
    const pastDue = event('customer.subscription.updated', subscriptionObject('past_due'));
    const header = signed(pastDue);
    expect((await deliver(pastDue, header)).body.data.duplicate).toBe(false);
    expect((await subscription()).body.data.status).toBe('past_due');

    // An older event arriving late (created before the stored state) changes nothing.
    const older = event('customer.subscription.updated', subscriptionObject('active'), nowSeconds() - 60);
    expect((await deliver(older, signed(older))).status).toBe(200);
    expect((await subscription()).body.data.status).toBe('past_due');

    clock.advance(1000);
    const deleted = event('customer.subscription.deleted', subscriptionObject('canceled'));
    expect((await deliver(deleted, signed(deleted))).status).toBe(200);
    expect((await subscription()).body.data).toMatchObject({ status: 'canceled', cancelAtPeriodEnd: false });

    // The same past_due delivery replayed within the tolerance: acknowledged, not applied again.
    const replayed = await deliver(pastDue, header);
    expect(replayed.status).toBe(200);
    expect(replayed.body.data.duplicate).toBe(true);
    expect((await subscription()).body.data.status).toBe('canceled');

    // Replayed after the tolerance window: refused outright.
    clock.advance(10 * 60_000);
    expectApiError(await deliver(pastDue, header), 400, 'bad_request');

    // Each applied status change is in the organization's audit trail, by the system actor; ignored
    // deliveries (duplicate, out of order) added nothing.
    const trail = await server.request<{
      data: Array<{ action: string; actor: { kind: string }; metadata: Record<string, unknown> }>;
    }>('GET', `/api/v1/organizations/${org.id}/audit-events?limit=100`, { key: org.ownerKey });
    const changes = trail.body.data.filter((e) => e.action.startsWith('subscription.')).slice(0, 2);
    expect(changes.map((e) => [e.action, e.actor.kind, e.metadata.source])).toEqual([
      ['subscription.canceled', 'system', 'webhook'],
      ['subscription.updated', 'system', 'webhook'],
    ]);
    expect(changes[0]!.metadata).toMatchObject({ from: { status: 'past_due' }, to: { status: 'canceled' } });
    expect(changes[1]!.metadata).toMatchObject({ to: { status: 'past_due' } });
  });

  it('ignores events for subscriptions it cannot place', async () => {
    const stray = event(
      'customer.subscription.updated',
      subscriptionObject('active', { customer: 'cus_unknown', metadata: {} }),
    );
    const res = await deliver(stray, signed(stray));
    expect(res.status).toBe(200);
    expect((await subscription()).body.data.status).toBe('canceled');
  });
});
