import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../src/lib/clock.js';
import { generateKeyEntry, parseKeyRing } from '../src/modules/oauth/token-vault.js';
import { FAILING_DISABLE_MS, MAX_ATTEMPTS } from '../src/modules/webhooks/retry-schedule.js';
import { parseAllowedPrivateHosts } from '../src/modules/webhooks/safe-target.js';
import { webhookDeliveries, webhookEndpoints } from '../src/modules/webhooks/webhooks.tables.js';
import { expectApiError } from './support/assertions.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { type Received, type Receiver, startReceiver, status, verify } from './support/webhook-receiver.js';

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
      allowedPrivateHosts: parseAllowedPrivateHosts(['127.0.0.1']).allowed,
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

async function waitFor<T>(read: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = read();
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
});
