import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../src/lib/clock.js';
import { generateKeyEntry, parseKeyRing } from '../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../src/lib/outbound/address-policy.js';
import { createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { endless, type RawBehaviour, startRawReceiver, trickle } from './support/raw-receiver.js';
import { startServer, type TestServer } from './support/server.js';

interface Attempt {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  responseExcerpt: string | null;
}
interface Delivery {
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Attempt[];
}

/** Short, so a test sees every misbehaving attempt end; the rule is the same at the real 10 s. */
const TIMEOUT_MS = 3_000;

/** Receivers that never let a request end on their own, each on its path. */
const BAD: Record<string, RawBehaviour> = {
  '/switching': (socket) =>
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'),
  '/switching-bare': (socket) => socket.write('HTTP/1.1 101 Switching Protocols\r\n\r\n'),
  '/upgrade-then-talk': (socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n');
    endless(socket, 'not http at all ');
  },
  '/cut-mid-status': (socket) => socket.end('HTTP/1.1 20'),
  '/cut-mid-headers': (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\nX-Half'),
  '/silent': () => undefined,
  '/early-hints-forever': (socket) => {
    const timer = setInterval(() => {
      if (socket.destroyed) clearInterval(timer);
      else socket.write('HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n');
    }, 50);
  },
  '/trickle-head': (socket) => trickle(socket, 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', 200),
  '/trickle-body': (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n');
    trickle(socket, 'x'.repeat(100_000), 200);
  },
  '/endless-headers': (socket) => {
    socket.write('HTTP/1.1 200 OK\r\n');
    endless(socket, 'X-More: yes\r\n');
  },
};

let server: TestServer;
let receiver: Awaited<ReturnType<typeof startRawReceiver>>;
let orgA: TestOrganization;
let orgB: TestOrganization;

beforeAll(async () => {
  receiver = await startRawReceiver(BAD);
  server = await startServer({
    // Retries wait on this clock, which stays put: each delivery gets its first attempt only.
    clock: createManualClock(new Date()),
    keyRing: parseKeyRing(generateKeyEntry('k1')),
    webhooks: {
      allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance,
      worker: { pollIntervalMs: 50, timeoutMs: TIMEOUT_MS },
    },
  });
  orgA = await createOrganization(server);
  orgB = await createOrganization(server);
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

async function createEndpoint(org: TestOrganization, path: string) {
  const res = await server.request<{ data: { endpoint: { id: string } } }>(
    'POST',
    '/api/v1/webhook-endpoints',
    { key: org.ownerKey, body: { url: receiver.url(path), eventTypes: ['api_key.created'] } },
  );
  expect(res.status, res.text).toBe(201);
  return res.body.data.endpoint.id;
}

const firstDelivery = async (org: TestOrganization, endpointId: string) =>
  (
    await server.request<{ data: Delivery[] }>('GET', `/api/v1/webhook-endpoints/${endpointId}/deliveries`, {
      key: org.ownerKey,
    })
  ).body.data[0];

describe('a receiver cannot stall webhook delivery', () => {
  it('101, upgrades, cut handshakes, silence, trickles and endless heads: every attempt ends in its timeout, failed with a reason; another organization is not delayed', async () => {
    const bad = new Map<string, string>();
    const reasons: Record<string, string> = {};
    for (const path of Object.keys(BAD)) bad.set(path, await createEndpoint(orgA, path));
    // Two events each: more of A's deliveries than its 4 slots, so slots must come free for all to be tried.
    const started = Date.now();
    await createKey(server, orgA, orgA.ownerId);
    await createKey(server, orgA, orgA.ownerId);

    // Meanwhile B's delivery goes out at once, well before any of A's attempts could have timed out.
    const good = await createEndpoint(orgB, '/b-fine');
    const sentAt = Date.now();
    await createKey(server, orgB, orgB.ownerId);
    await expect
      .poll(() => receiver.at('/b-fine').length, { timeout: TIMEOUT_MS, interval: 25 })
      .toBeGreaterThan(0);
    expect(Date.now() - sentAt).toBeLessThan(TIMEOUT_MS);
    await expect
      .poll(async () => (await firstDelivery(orgB, good))?.status, { timeout: 5_000 })
      .toBe('succeeded');

    // Each of A's deliveries gets its first attempt, recorded as a failure with a reason, within its timeout
    // (20 deliveries, 4 at a time: five rounds of at most TIMEOUT_MS each, and some slack for the machine).
    for (const [path, id] of bad) {
      await expect
        .poll(async () => (await firstDelivery(orgA, id))?.attempts.length ?? 0, {
          timeout: TIMEOUT_MS * 8,
          interval: 50,
          message: `${path}: an attempt is recorded`,
        })
        .toBeGreaterThan(0);
      const delivery = (await firstDelivery(orgA, id))!;
      expect(delivery.status, path).toBe('pending');
      const [attempt] = delivery.attempts;
      expect(attempt!.error, path).toMatch(/\S/);
      expect(attempt!.statusCode === null || attempt!.statusCode >= 300, path).toBe(true);
      // Within its timeout, and some slack for a loaded machine (a stalled attempt is never recorded at all).
      expect(attempt!.latencyMs, path).toBeLessThan(TIMEOUT_MS * 3);
      reasons[path] = attempt!.error!;
    }
    expect(reasons).toMatchObject({
      '/switching': 'the peer answered 101 (switching protocols) instead of an HTTP answer',
      '/switching-bare': 'the peer answered 101 (switching protocols) instead of an HTTP answer',
      // Its flood of bytes after the 101 may keep the answer from being read before the deadline ends it.
      '/upgrade-then-talk': expect.stringMatching(
        /^the peer answered 101 \(switching protocols\)|^timed out after/,
      ),
      '/silent': `timed out after ${TIMEOUT_MS} ms`,
      '/early-hints-forever': `timed out after ${TIMEOUT_MS} ms`,
      '/trickle-body': `timed out after ${TIMEOUT_MS} ms (reading the answer)`,
    });
    // Every slot came free: the worker has nothing in flight once the attempts are recorded.
    const worker = server.context.webhookWorker!;
    await Promise.race([
      worker.idle(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('the worker never went idle')), 5_000)),
    ]);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 10);
  }, 60_000);
});
