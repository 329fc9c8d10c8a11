import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../src/lib/clock.js';
import { generateKeyEntry, parseKeyRing } from '../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../src/lib/outbound/address-policy.js';
import { FAILING_DISABLE_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../src/modules/webhooks/retry-schedule.js';
import { secretAad } from '../src/modules/webhooks/webhooks.service.js';
import { webhookDeliveries, webhookEndpoints } from '../src/modules/webhooks/webhooks.tables.js';
import { expectApiError } from './support/assertions.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { type Receiver, startReceiver, status, verify } from './support/webhook-receiver.js';

interface Endpoint {
  id: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
}
interface Attempt {
  at: string;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  responseExcerpt: string | null;
}
interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: string | null;
  attempts: Attempt[];
}
type DeliveryList = {
  data: Delivery[];
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null };
};

const keyRing = parseKeyRing(generateKeyEntry('k1'));
// Retries are driven by this clock (advanced by the tests, never slept through); the worker polls fast.
const clock = createManualClock(new Date());
let server: TestServer;
let receiver: Receiver;
let org: TestOrganization;

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startServer({
    keyRing,
    clock,
    webhooks: {
      allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance,
      // rebind.test: a name whose address is private, as DNS would answer it at delivery time.
      worker: {
        pollIntervalMs: 50,
        resolve: async (host) =>
          host === 'rebind.test' ? [{ address: '127.0.0.1', family: 4 }] : [{ address: host, family: 4 }],
      },
    },
  });
  org = await createOrganization(server);
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

let serial = 0;
async function createEndpoint(
  eventTypes: string[],
  options: { org?: TestOrganization; path?: string; url?: string } = {},
) {
  const path = options.path ?? `/hook-${serial++}`;
  const res = await server.request<{ data: { endpoint: Endpoint; secret: string } }>(
    'POST',
    '/api/v1/webhook-endpoints',
    { key: (options.org ?? org).ownerKey, body: { url: options.url ?? receiver.url(path), eventTypes } },
  );
  expect(res.status, res.text).toBe(201);
  return { ...res.body.data, path };
}

/** Waits for the worker to have sent everything due now, and for the requests to have reached the receiver. */
async function settle() {
  const worker = server.context.webhookWorker!;
  worker.wake();
  await new Promise((resolve) => setTimeout(resolve, 120));
  await worker.idle();
}

async function waitFor<T>(
  read: () => T | undefined | Promise<T | undefined>,
  what: string,
  ms = 15_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const deliveries = (endpointId: string, query = '', key = org.ownerKey) =>
  server.request<DeliveryList>('GET', `/api/v1/webhook-endpoints/${endpointId}/deliveries${query}`, { key });

/** Moves the clock to the delivery's next attempt and lets the worker make it. */
async function nextAttempt(deliveryId: string) {
  const [row] = await server.context.database.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, deliveryId));
  if (row!.nextAttemptAt > clock.now()) clock.set(row!.nextAttemptAt);
  await settle();
}

describe('webhook deliveries', () => {
  it('an event arrives once, signed per Standard Webhooks, and the delivery log shows the attempt', async () => {
    const { endpoint, secret, path } = await createEndpoint(['api_key.created']);
    const key = await createKey(server, org, org.ownerId);
    const entry = await waitFor(() => receiver.at(path)[0], 'the delivery');
    await settle();
    expect(receiver.at(path)).toHaveLength(1);
    expect(verify(secret, entry)).toMatchObject({
      type: 'api_key.created',
      data: { apiKey: { id: key.id } },
    });
    expect(entry.headers['content-type']).toBe('application/json');
    const log = await deliveries(endpoint.id);
    expect(log.status, log.text).toBe(200);
    const [delivery] = log.body.data;
    expect(delivery).toMatchObject({
      id: entry.headers['webhook-id'],
      eventId: entry.event.id,
      eventType: 'api_key.created',
      status: 'succeeded',
      nextAttemptAt: null,
    });
    expect(delivery!.attempts).toEqual([
      expect.objectContaining({ statusCode: 200, error: null, responseExcerpt: 'ok' }),
    ]);
    expect(delivery!.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('a 500 is retried on schedule with the same webhook-id; the retry that gets a 200 ends it', async () => {
    const { endpoint, secret, path } = await createEndpoint(['member.joined']);
    receiver.respond(path, status(500, 'down for maintenance'), status(200, 'thanks'));
    await addMember(server, org, 'member');
    const first = await waitFor(() => receiver.at(path)[0], 'the first attempt');
    await settle();
    let [delivery] = (await deliveries(endpoint.id)).body.data;
    expect(delivery!.status).toBe('pending');
    expect(delivery!.attempts).toEqual([
      expect.objectContaining({ statusCode: 500, responseExcerpt: 'down for maintenance' }),
    ]);
    // The first retry comes 5 to 6 seconds later (5 s and up to 20 % jitter).
    const wait = Date.parse(delivery!.nextAttemptAt!) - Date.parse(delivery!.attempts[0]!.at);
    expect(wait).toBeGreaterThanOrEqual(5_000);
    expect(wait).toBeLessThanOrEqual(6_000);
    expect(receiver.at(path)).toHaveLength(1);
    await nextAttempt(delivery!.id);
    const retry = await waitFor(() => receiver.at(path)[1], 'the retry');
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(retry.body).toBe(first.body);
    verify(secret, retry);
    [delivery] = (await deliveries(endpoint.id)).body.data;
    expect(delivery!.status).toBe('succeeded');
    expect(delivery!.attempts.map((a) => a.statusCode)).toEqual([500, 200]);
    const stored = (
      await server.request<{ data: Endpoint }>('GET', `/api/v1/webhook-endpoints/${endpoint.id}`, {
        key: org.ownerKey,
      })
    ).body.data;
    expect(stored.failingSince).toBeNull();
  });

  it('410 Gone disables the endpoint at once: audited, its reason shown, told as an event to other endpoints', async () => {
    const watcher = await createEndpoint(['webhook_endpoint.disabled']);
    const { endpoint, path } = await createEndpoint(['api_key.created']);
    receiver.respond(path, status(410, 'this hook is gone'));
    await createKey(server, org, org.ownerId);
    await waitFor(() => receiver.at(path)[0], 'the attempt');
    const told = await waitFor(
      () => receiver.at(watcher.path).find((entry) => entry.event.type === 'webhook_endpoint.disabled'),
      'the webhook_endpoint.disabled event',
    );
    verify(watcher.secret, told);
    expect(told.event.data).toEqual({
      webhookEndpoint: { id: endpoint.id, url: receiver.url(path) },
      reason: expect.stringMatching(/^The endpoint answered 410 Gone on /),
    });
    const read = await server.request<{ data: Endpoint }>('GET', `/api/v1/webhook-endpoints/${endpoint.id}`, {
      key: org.ownerKey,
    });
    expect(read.body.data).toMatchObject({
      enabled: false,
      disabledReason: expect.stringContaining('410 Gone'),
    });
    const [delivery] = (await deliveries(endpoint.id)).body.data;
    expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
    const audit = await server.request<{
      data: Array<{ action: string; actor: { kind: string }; target: { id: string } }>;
    }>('GET', `/api/v1/organizations/${org.id}/audit-events?action=webhook_endpoint.disabled`, {
      key: org.ownerKey,
    });
    expect(audit.body.data.filter((event) => event.target.id === endpoint.id)).toEqual([
      expect.objectContaining({
        action: 'webhook_endpoint.disabled',
        actor: expect.objectContaining({ kind: 'system' }),
      }),
    ]);
    // Nothing more is sent to it; a test or a resend is refused until it is enabled again.
    await createKey(server, org, org.ownerId);
    await settle();
    expect(receiver.at(path)).toHaveLength(1);
    expectApiError(
      await server.request('POST', `/api/v1/webhook-endpoints/${endpoint.id}/test`, { key: org.ownerKey }),
      409,
      'conflict',
    );
    const enabled = await server.request<{ data: Endpoint }>(
      'PATCH',
      `/api/v1/webhook-endpoints/${endpoint.id}`,
      {
        key: org.ownerKey,
        body: { enabled: true },
      },
    );
    expect(enabled.body.data).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });

  it('an endpoint failing for three days is disabled: retries follow the schedule, then the delivery is given up', async () => {
    const { endpoint, path } = await createEndpoint(['member.joined']);
    receiver.respond(path, status(503, 'still down'));
    const started = clock.now().getTime();
    await addMember(server, org, 'member');
    await waitFor(() => receiver.at(path)[0], 'the first attempt');
    await settle();
    let [delivery] = (await deliveries(endpoint.id)).body.data;
    while (delivery!.status === 'pending') {
      const before = receiver.at(path).length;
      await nextAttempt(delivery!.id);
      await waitFor(() => (receiver.at(path).length > before ? true : undefined), 'the next attempt');
      await settle();
      [delivery] = (await deliveries(endpoint.id)).body.data;
    }
    // Given up after the schedule's last attempt, or one before it when jitter made that one three days late.
    expect(delivery!.status).toBe('failed');
    const count = delivery!.attempts.length;
    expect(count).toBeGreaterThanOrEqual(MAX_ATTEMPTS - 1);
    expect(count).toBeLessThanOrEqual(MAX_ATTEMPTS);
    expect(receiver.at(path)).toHaveLength(count);
    // Every attempt carried the same webhook-id.
    expect(new Set(receiver.at(path).map((entry) => entry.headers['webhook-id']))).toEqual(
      new Set([delivery!.id]),
    );
    // Each gap is its step of the schedule (5 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h…) plus up to 20 % jitter.
    const times = delivery!.attempts.map((attempt) => Date.parse(attempt.at));
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    expect(gaps).toHaveLength(count - 1);
    gaps.forEach((gap, index) => {
      expect(gap).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[index]!);
      expect(gap).toBeLessThanOrEqual(RETRY_DELAYS_MS[index]! * 1.2 + 1);
    });
    const span = times.at(-1)! - times[0]!;
    expect(span).toBeGreaterThanOrEqual(FAILING_DISABLE_MS);
    expect(span).toBeLessThan(FAILING_DISABLE_MS * 1.25);
    expect(times[0]! - started).toBeLessThan(60_000);
    const read = await server.request<{ data: Endpoint }>('GET', `/api/v1/webhook-endpoints/${endpoint.id}`, {
      key: org.ownerKey,
    });
    expect(read.body.data).toMatchObject({
      enabled: false,
      disabledReason: expect.stringMatching(
        /^Every delivery attempt failed for three days \(since .*; last: HTTP 503\)$/,
      ),
      failingSince: new Date(times[0]!).toISOString(),
    });
  });

  it('during a rotation every delivery is signed with both secrets: the receiver verifies with either', async () => {
    const { endpoint, secret: oldSecret, path } = await createEndpoint(['api_key.created']);
    const rotated = await server.request<{ data: { secret: string } }>(
      'POST',
      `/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
      { key: org.ownerKey },
    );
    const newSecret = rotated.body.data.secret;
    await createKey(server, org, org.ownerId);
    const entry = await waitFor(() => receiver.at(path)[0], 'the delivery');
    expect(entry.headers['webhook-signature']!.split(' ')).toEqual([
      expect.stringMatching(/^v1,/),
      expect.stringMatching(/^v1,/),
    ]);
    expect(verify(newSecret, entry)).toMatchObject({ type: 'api_key.created' });
    expect(verify(oldSecret, entry)).toMatchObject({ type: 'api_key.created' });
    expect(() => verify('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', entry)).toThrow();
    // Once the overlap has passed, only the new secret signs.
    clock.advance(24 * 3_600_000 + 1_000);
    await createKey(server, org, org.ownerId);
    const later = await waitFor(() => receiver.at(path)[1], 'the next delivery');
    expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    verify(newSecret, later);
    expect(() => verify(oldSecret, later)).toThrow();
  });

  it('a second rotation within 24 hours keeps the original secret signing for its full overlap', async () => {
    const { endpoint, secret: original, path } = await createEndpoint(['api_key.created']);
    const rotate = async () =>
      (
        await server.request<{ data: { secret: string; endpoint: Endpoint } }>(
          'POST',
          `/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
          { key: org.ownerKey },
        )
      ).body.data;
    const first = await rotate();
    clock.advance(12 * 3_600_000);
    const second = await rotate();
    const delivered = async (index: number) => {
      await createKey(server, org, org.ownerId);
      return waitFor(() => receiver.at(path)[index], `delivery ${index}`);
    };
    // 12 h after the first rotation: all three secrets verify.
    let entry = await delivered(0);
    for (const secret of [original, first.secret, second.secret]) verify(secret, entry);
    // 24 h after the first rotation: the original's overlap is over, the first rotation's secret still signs.
    clock.advance(12 * 3_600_000 + 1_000);
    entry = await delivered(1);
    verify(first.secret, entry);
    verify(second.secret, entry);
    expect(() => verify(original, entry)).toThrow();
    // 24 h after the second: only the newest.
    clock.advance(12 * 3_600_000);
    entry = await delivered(2);
    expect(entry.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    verify(second.secret, entry);
    expect(() => verify(first.secret, entry)).toThrow();
  });

  it('a redirect is not followed: the 3xx is a failed attempt and its target never hears of it', async () => {
    const { endpoint, path } = await createEndpoint(['api_key.created']);
    receiver.respond(path, status(302, 'moved', { location: receiver.url('/elsewhere') }));
    await createKey(server, org, org.ownerId);
    await waitFor(() => receiver.at(path)[0], 'the attempt');
    await settle();
    const [delivery] = (await deliveries(endpoint.id)).body.data;
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: [expect.objectContaining({ statusCode: 302 })],
    });
    expect(receiver.at('/elsewhere')).toHaveLength(0);
  });

  it('an endless answer is read up to 64 KiB and kept as a 1 KiB excerpt', async () => {
    const { endpoint, path } = await createEndpoint(['api_key.created']);
    let written = 0;
    receiver.respond(path, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024);
      const pump = () => {
        while (!response.destroyed && written < 64 * 1024 * 1024 && response.write(chunk))
          written += chunk.length;
        if (!response.destroyed && written < 64 * 1024 * 1024) response.once('drain', pump);
      };
      response.on('close', () => undefined);
      pump();
    });
    await createKey(server, org, org.ownerId);
    await waitFor(() => receiver.at(path)[0], 'the attempt');
    await settle();
    const [delivery] = (await deliveries(endpoint.id)).body.data;
    expect(delivery!.status).toBe('succeeded');
    expect(delivery!.attempts[0]!.responseExcerpt).toBe('x'.repeat(1024));
    // It stopped reading long before the endpoint would have stopped writing.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('test and resend: one endpoint only, the same webhook-id again; the log pages; other organizations see 404', async () => {
    const first = await createEndpoint(['member.removed']);
    const second = await createEndpoint(['member.removed']);
    const tested = await server.request<{ data: Delivery }>(
      'POST',
      `/api/v1/webhook-endpoints/${first.endpoint.id}/test`,
      {
        key: org.ownerKey,
      },
    );
    expect(tested.status, tested.text).toBe(202);
    expect(tested.body.data).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: [] });
    const entry = await waitFor(() => receiver.at(first.path)[0], 'the test event');
    expect(verify(first.secret, entry)).toMatchObject({
      type: 'webhook.test',
      data: { webhookEndpoint: { id: first.endpoint.id } },
    });
    expect(entry.headers['webhook-id']).toBe(tested.body.data.id);
    await settle();
    expect(receiver.at(second.path)).toHaveLength(0);

    // Resend of the test event (any event of the organization may be resent): the same webhook-id.
    const resent = await server.request<{ data: Delivery }>(
      'POST',
      `/api/v1/webhook-endpoints/${first.endpoint.id}/resend`,
      { key: org.ownerKey, body: { eventId: entry.event.id } },
    );
    expect(resent.status, resent.text).toBe(202);
    expect(resent.body.data).toMatchObject({ id: tested.body.data.id, status: 'pending' });
    const again = await waitFor(() => receiver.at(first.path)[1], 'the resend');
    expect(again.headers['webhook-id']).toBe(entry.headers['webhook-id']);
    await settle();
    const [logged] = (await deliveries(first.endpoint.id)).body.data;
    expect(logged!.attempts).toHaveLength(2);

    // Resending an event the endpoint never had (another type) queues a new delivery to it.
    const key = await createKey(server, org, org.ownerId);
    const events = await server.request<{ data: Array<{ id: string; type: string }> }>(
      'GET',
      '/api/v1/events?type=api_key.created&limit=1',
      { key: org.ownerKey },
    );
    const created = events.body.data[0]!;
    expect(created.type).toBe('api_key.created');
    const other = await server.request<{ data: Delivery }>(
      'POST',
      `/api/v1/webhook-endpoints/${first.endpoint.id}/resend`,
      { key: org.ownerKey, body: { eventId: created.id } },
    );
    expect(other.status, other.text).toBe(202);
    const third = await waitFor(() => receiver.at(first.path)[2], 'the resent event');
    expect(third.event).toMatchObject({ id: created.id, data: { apiKey: { id: key.id } } });
    await settle();

    // Pages, newest first.
    const page1 = await deliveries(first.endpoint.id, '?limit=1');
    expect(page1.body.data.map((d) => d.eventId)).toEqual([created.id]);
    expect(page1.body.pagination.hasMore).toBe(true);
    const page2 = await deliveries(first.endpoint.id, `?limit=1&cursor=${page1.body.pagination.nextCursor}`);
    expect(page2.body.data.map((d) => d.eventType)).toEqual(['webhook.test']);
    expect(page2.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
    expect((await deliveries(first.endpoint.id, '?status=failed')).body.data).toEqual([]);
    expectApiError(await deliveries(first.endpoint.id, '?cursor=nonsense'), 422, 'validation_failed');

    // Another organization's endpoint, event or delivery reads as absent.
    const stranger = await createOrganization(server);
    expectApiError(await deliveries(first.endpoint.id, '', stranger.ownerKey), 404, 'not_found');
    expectApiError(
      await server.request('POST', `/api/v1/webhook-endpoints/${first.endpoint.id}/test`, {
        key: stranger.ownerKey,
      }),
      404,
      'not_found',
    );
    const theirs = await createEndpoint(['member.removed'], { org: stranger });
    expectApiError(
      await server.request('POST', `/api/v1/webhook-endpoints/${theirs.endpoint.id}/resend`, {
        key: stranger.ownerKey,
        body: { eventId: created.id },
      }),
      404,
      'not_found',
    );
    // A member (no webhooks:manage) is refused.
    const memberId = await addMember(server, org, 'member');
    const memberKey = await createKey(server, org, memberId);
    expectApiError(await deliveries(first.endpoint.id, '', memberKey.key), 403, 'forbidden');
  });

  it('metrics: attempts by outcome, deliveries given up, endpoints disabled, queue lag', async () => {
    const res = await fetch(`${server.url}/metrics`);
    const text = await res.text();
    expect(text).toMatch(/^cadre_webhook_delivery_attempts_total\{outcome="succeeded"\} [1-9]/m);
    expect(text).toMatch(/^cadre_webhook_delivery_attempts_total\{outcome="http_error"\} [1-9]/m);
    expect(text).toMatch(/^cadre_webhook_deliveries_failed_total [1-9]/m);
    expect(text).toMatch(/^cadre_webhook_endpoints_disabled_total\{reason="gone"\} [1-9]/m);
    expect(text).toMatch(/^cadre_webhook_endpoints_disabled_total\{reason="failing"\} [1-9]/m);
    expect(text).toMatch(/^cadre_webhook_queue_lag_seconds \d/m);
  });

  it("one organization's hanging endpoint holds up neither another organization's deliveries nor more than its share", async () => {
    const orgA = await createOrganization(server);
    const orgB = await createOrganization(server);
    const a = await createEndpoint(['api_key.created'], { org: orgA });
    const b = await createEndpoint(['api_key.created'], { org: orgB });
    receiver.respond(a.path, () => undefined); // never answers
    for (let i = 0; i < 12; i++) await createKey(server, orgA, orgA.ownerId);
    await waitFor(() => (receiver.at(a.path).length >= 4 ? true : undefined), "A's first attempts");
    const sentAt = Date.now();
    await createKey(server, orgB, orgB.ownerId);
    const got = await waitFor(() => receiver.at(b.path)[0], "B's delivery");
    expect(got.at - sentAt).toBeLessThan(3_000);
    verify(b.secret, got);
    // A has at most 4 deliveries in flight at once; the other 8 wait, and the queue lag shows it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.at(a.path)).toHaveLength(4);
    clock.advance(2_000); // the lag is read on the clock that schedules deliveries
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const lag = Number(/^cadre_webhook_queue_lag_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(lag).toBeGreaterThanOrEqual(2);
    // The hanging attempts end at the 10 s timeout, logged as such, and are retried later.
    const timedOut = await waitFor(
      () => (receiver.at(a.path).length > 4 ? true : undefined),
      'the next of A once the first timed out',
      20_000,
    );
    expect(timedOut).toBe(true);
    const attempted = await waitFor(async () => {
      const log = await deliveries(a.endpoint.id, '?limit=100', orgA.ownerKey);
      const all = log.body.data.flatMap((d) => d.attempts);
      return all.length >= 4 ? all : undefined;
    }, "A's timed-out attempts logged");
    expect(attempted.filter((attempt) => attempt.error === 'timed out after 10000 ms').length).toBe(
      attempted.length,
    );
    for (const attempt of attempted) {
      expect(attempt.statusCode).toBeNull();
      expect(attempt.latencyMs).toBeGreaterThanOrEqual(9_900);
    }
    receiver.respond(a.path, status(200));
  }, 60_000);
});

describe('safe targets without CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS', () => {
  let strict: TestServer;
  let owner: TestOrganization;
  beforeAll(async () => {
    strict = await startServer({
      keyRing,
      webhooks: {
        worker: {
          pollIntervalMs: 50,
          // What DNS answers at delivery time: a public-looking name pointing at this host (rebinding).
          resolve: async (host) =>
            host === 'rebind.test'
              ? [{ address: '127.0.0.1', family: 4 }]
              : host === 'mixed.test'
                ? [
                    { address: '93.184.216.34', family: 4 },
                    { address: '::ffff:10.0.0.7', family: 6 },
                  ]
                : [{ address: host, family: 4 }],
        },
      },
    });
    owner = await createOrganization(strict);
  });
  afterAll(() => strict.close());

  it('plain http and private targets are refused: http and address literals at creation, names at delivery', async () => {
    const create = (url: string) =>
      strict.request<{ data: { endpoint: Endpoint } }>('POST', '/api/v1/webhook-endpoints', {
        key: owner.ownerKey,
        body: { url, eventTypes: ['api_key.created'] },
      });
    const http = await create(receiver.url('/strict'));
    expectApiError(http, 422, 'validation_failed');
    expect(http.text).toContain('CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS');
    // An address written in the URL is judged at once: it could never be delivered to.
    for (const url of [
      `https://127.0.0.1:${receiver.port}/strict`,
      `https://[::ffff:127.0.0.1]:${receiver.port}/strict`,
      `https://[::ffff:0:127.0.0.1]:${receiver.port}/strict`, // IPv4-translated
      `https://[::127.0.0.1]:${receiver.port}/strict`, // IPv4-compatible
      `https://[2002:7f00:1::]:${receiver.port}/strict`, // 6to4
      `https://[::1]:${receiver.port}/strict`,
      'https://169.254.169.254/latest/meta-data',
      'https://localhost/strict',
    ]) {
      expectApiError(await create(url), 422, 'validation_failed');
    }
    // A name is judged on what it resolves to at each delivery.
    const targets = [
      `https://rebind.test:${receiver.port}/strict`,
      `https://mixed.test:${receiver.port}/strict`,
    ];
    const ids: string[] = [];
    const errors: string[] = [];
    for (const url of targets) {
      const res = await create(url);
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.data.endpoint.id);
    }
    await createKey(strict, owner, owner.ownerId);
    const worker = strict.context.webhookWorker!;
    for (const id of ids) {
      let attempts: Attempt[] = [];
      for (let tries = 0; tries < 200 && attempts.length === 0; tries++) {
        worker.wake();
        await worker.idle();
        const res = await strict.request<DeliveryList>('GET', `/api/v1/webhook-endpoints/${id}/deliveries`, {
          key: owner.ownerKey,
        });
        attempts = res.body.data[0]?.attempts ?? [];
        if (attempts.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(attempts[0], id).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused: /) });
      errors.push(attempts[0]!.error!);
    }
    // The log names the host written in the URL, never what an internal name resolves to.
    expect(errors[0]).toMatch(/^refused: rebind\.test has no address Cadre may connect to/);
    expect(errors[1]).toMatch(/^refused: mixed\.test has no address Cadre may connect to/);
    // and names the settings that would allow it.
    for (const error of errors) expect(error).toContain('CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS');
    for (const error of errors.slice(0, 2)) expect(error).not.toMatch(/127\.0\.0\.1|10\.0\.0\.7|93\.184/);
    expect(receiver.at('/strict')).toHaveLength(0);
  });
});

describe('cadre admin rotate-encryption-key', () => {
  it("re-encrypts webhook signing secrets (and a rotation's previous one) under the newest key", async () => {
    const k1 = generateKeyEntry('k1');
    const k2 = generateKeyEntry('k2');
    const before = await startServer({ keyRing: parseKeyRing(k1) });
    const o = await createOrganization(before);
    const res = await before.request<{ data: { endpoint: Endpoint; secret: string } }>(
      'POST',
      '/api/v1/webhook-endpoints',
      { key: o.ownerKey, body: { url: 'https://hooks.example.com/x', eventTypes: ['api_key.created'] } },
    );
    const { endpoint, secret: previous } = res.body.data;
    const rotated = await before.request<{ data: { secret: string } }>(
      'POST',
      `/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
      { key: o.ownerKey },
    );
    const current = rotated.body.data.secret;
    // The new key goes first in the ring; the old one stays until the rotation is done.
    const after = await startServer({
      keyRing: parseKeyRing(`${k2},${k1}`),
      database: before.context.database,
    });
    try {
      expect(await after.context.reencryptAll()).toMatchObject({
        webhookEndpoints: 1,
        unreadable: [],
        done: true,
      });
      const [row] = await after.context.database.db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, endpoint.id));
      expect(row!.secretCiphertext).toMatch(/^v1\.k2\./);
      expect(row!.previousSecretCiphertext).toMatch(/^v1\.k2\./);
      // The new key alone opens both.
      const k2Only = parseKeyRing(k2);
      expect(k2Only.decrypt(row!.secretCiphertext, secretAad(endpoint.id, 'secret'))).toBe(current);
      expect(
        JSON.parse(k2Only.decrypt(row!.previousSecretCiphertext!, secretAad(endpoint.id, 'previous_secret'))),
      ).toEqual([expect.objectContaining({ secret: previous })]);
      expect((await after.context.reencryptAll()).webhookEndpoints).toBe(0);
    } finally {
      await after.close();
      await before.close();
    }
  });
});
