import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { currentTenant, isAttributing, stopAttributing } from '../lib/tenant-context.js';
import type { Principal } from '../modules/auth/permissions.js';
import { type ConcurrencyOptions, createConcurrencyLimit, DEFAULT_CONCURRENCY } from './concurrency.js';
import { registerErrorHandling } from './error-handler.js';
import { registerRequestPipeline } from './pipeline.js';

/**
 * A server whose `/slow` requests stay in flight until the test lets them go, behind the concurrency step.
 * The caller is named by headers (x-key, x-org) the way authentication would set a principal.
 */
async function serverWith(
  options: Partial<ConcurrencyOptions> & { perCredential: number; perOrganization: number; queueMs: number },
) {
  const app: FastifyInstance = Fastify();
  registerErrorHandling(app);
  const held: Array<() => void> = [];
  /** The x-key of each /slow request, in the order they started running. */
  const started: string[] = [];
  const limiter = createConcurrencyLimit(
    { ...DEFAULT_CONCURRENCY, ...options },
    () => databaseContended,
    () => competitions++,
  );
  limiter.register(app);
  registerRequestPipeline(app, {
    onRequest: [
      (request) => {
        // Load shedding's verdict, the way registerOverloadProtection leaves it for this step.
        if (request.headers['x-overloaded']) {
          request.overloaded = {
            ok: false,
            reason: 'The server is overloaded',
            retryAfterS: 2,
            cause: 'event_loop',
          };
        }
        const key = request.headers['x-key'];
        if (typeof key === 'string') {
          request.principal = {
            kind: 'apiKey',
            apiKeyId: key,
            organizationId: String(request.headers['x-org']),
            userId: 'u',
            role: 'owner',
            grants: { type: 'organization', permissions: ['*'] },
          } satisfies Principal;
        }
        return undefined;
      },
      limiter.step,
    ],
    onResponse: [limiter.release],
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('overloaded', null);
  const slow = (request: { headers: Record<string, unknown> }) => {
    started.push(String(request.headers['x-key']));
    return new Promise((resolve) => held.push(() => resolve({ ok: true })));
  };
  app.get('/slow', slow);
  // A write: it takes a turn in the instance's fair share (reads do not).
  app.post('/slow', slow);
  app.get('/fast', () => ({ ok: true }));
  // Whose work the handler runs as, after its body was read and past an await (as a repository would ask).
  app.post('/tenant', async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { tenant: currentTenant() ?? null, body: request.body };
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    limiter,
    /** Lets the oldest held request answer. */
    releaseOne: () => held.shift()?.(),
    heldCount: () => held.length,
    started,
    get: (path: string, headers: Record<string, string>, signal?: AbortSignal) =>
      fetch(`${url}${path}`, { headers, ...(signal ? { signal } : {}) }),
    post: (path: string, headers: Record<string, string>, body?: unknown) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
  };
}

let current: Awaited<ReturnType<typeof serverWith>> | undefined;
/** What the servers' database says about statements waiting for it. */
let databaseContended = false;
/** How many times the servers said tenants started competing for the database. */
let competitions = 0;
afterEach(async () => {
  databaseContended = false;
  competitions = 0;
  stopAttributing();
  while (current && current.heldCount() > 0) current.releaseOne();
  await current?.app.close();
  current = undefined;
});

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

const a1 = { 'x-key': 'a1', 'x-org': 'A' };
const a2 = { 'x-key': 'a2', 'x-org': 'A' };
const b1 = { 'x-key': 'b1', 'x-org': 'B' };

describe('concurrency limit', () => {
  it("runs the handler as the request's tenant while tenants compete for the database", async () => {
    current = await serverWith({ perCredential: 2, perOrganization: 10, queueMs: 5_000 });
    const big = { text: 'x'.repeat(200_000) }; // read in several chunks, on the socket's own async context
    // One tenant in flight, or an idle database: nothing to take turns for, no attribution (it costs every
    // promise of the process).
    databaseContended = true;
    expect(await (await current.post('/tenant', a1, { n: 0 })).json()).toEqual({
      tenant: null,
      body: { n: 0 },
    });
    const held = current.post('/slow', b1);
    await until(() => current!.heldCount() === 1);
    databaseContended = false;
    await current.post('/tenant', a1, { n: 0 });
    expect(isAttributing()).toBe(false);
    expect(competitions).toBe(0);
    // Another tenant in flight and statements waiting: from now on the work knows its tenant.
    databaseContended = true;
    const organization = await current.post('/tenant', a1, big);
    expect(await organization.json()).toEqual({ tenant: 'A', body: big });
    const anonymous = await (await current.post('/tenant', {}, { n: 1 })).json();
    expect(anonymous).toEqual({ tenant: expect.stringMatching(/^c:/), body: { n: 1 } });
    // The operator hears of it once, when the competition starts, not once per request.
    expect(competitions).toBe(1);
    expect(currentTenant()).toBeUndefined();
    current.releaseOne();
    expect((await held).status).toBe(200);
  });

  it('lets a request over the credential limit wait, and admits it when a slot frees', async () => {
    current = await serverWith({ perCredential: 2, perOrganization: 10, queueMs: 5_000 });
    const first = [current.get('/slow', a1), current.get('/slow', a1)];
    await until(() => current!.heldCount() === 2);
    const third = current.get('/slow', a1);
    await new Promise((r) => setTimeout(r, 100));
    expect(current.heldCount()).toBe(2); // the third is waiting, not running
    current.releaseOne();
    await until(() => current!.heldCount() === 2);
    current.releaseOne();
    current.releaseOne();
    for (const answer of await Promise.all([...first, third])) expect(answer.status).toBe(200);
    expect(current.limiter.activeOf('c:key:a1')).toBe(0);
  });

  it('answers 429 concurrency_limited with Retry-After when no slot frees in time', async () => {
    current = await serverWith({ perCredential: 1, perOrganization: 10, queueMs: 100 });
    const first = current.get('/slow', a1);
    await until(() => current!.heldCount() === 1);
    const refused = await current.get('/fast', a1);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('concurrency_limited');
    current.releaseOne();
    expect((await first).status).toBe(200);
    expect((await current.get('/fast', a1)).status).toBe(200);
  });

  it('keeps another organization unaffected while one is saturated', async () => {
    current = await serverWith({ perCredential: 2, perOrganization: 3, queueMs: 100 });
    const busy = [current.get('/slow', a1), current.get('/slow', a1), current.get('/slow', a2)];
    await until(() => current!.heldCount() === 3);
    // Organization A is at its limit: its other key waits, then is refused…
    expect((await current.get('/fast', a2)).status).toBe(429);
    // …while organization B is served at once.
    const started = Date.now();
    expect((await current.get('/fast', b1)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(100);
    while (current.heldCount() > 0) current.releaseOne();
    await Promise.all(busy);
  });

  it('frees the slot of a client that goes away', async () => {
    current = await serverWith({ perCredential: 1, perOrganization: 10, queueMs: 100 });
    const abort = new AbortController();
    const gone = current.get('/slow', a1, abort.signal).catch(() => undefined);
    await until(() => current!.heldCount() === 1);
    abort.abort();
    await gone;
    await until(() => current!.limiter.activeOf('c:key:a1') === 0);
    expect(current.limiter.instanceActive()).toBe(0);
    current.releaseOne();
  });

  it('gives back a slot handed to a client that left while it waited', async () => {
    current = await serverWith({ perCredential: 1, perOrganization: 10, queueMs: 2_000 });
    const first = current.get('/slow', a1);
    await until(() => current!.heldCount() === 1);
    const abort = new AbortController();
    const waiting = current.get('/slow', a1, abort.signal).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    await waiting;
    current.releaseOne();
    expect((await first).status).toBe(200);
    await until(() => current!.limiter.activeOf('c:key:a1') === 0);
    expect(current.limiter.instanceActive()).toBe(0);
    expect((await current.get('/fast', a1)).status).toBe(200);
  });

  it('serves another organization at once while one fills the instance, and before its older waiters', async () => {
    current = await serverWith({
      perCredential: 50,
      perOrganization: 50,
      capacity: 2,
      reserved: 1,
      queueMs: 5_000,
    });
    const flood = Array.from({ length: 5 }, () => current!.post('/slow', a1));
    await until(() => current!.heldCount() === 2); // at capacity: A's other three wait
    const quiet = [current.post('/slow', b1)];
    await until(() => current!.heldCount() === 3); // B's first takes its reserved slot at once
    quiet.push(current.post('/slow', b1));
    await new Promise((r) => setTimeout(r, 50));
    expect(current.started).toEqual(['a1', 'a1', 'b1']);
    current.releaseOne();
    current.releaseOne();
    // A slot is free: B's second request goes before the three of A that have waited longer.
    await until(() => current!.started.length >= 4);
    expect(current.started[3]).toBe('b1');
    while (current.heldCount() > 0 || current.started.length < 7) {
      current.releaseOne();
      await new Promise((r) => setTimeout(r, 5));
    }
    for (const answer of await Promise.all([...flood, ...quiet])) expect(answer.status).toBe(200);
    expect(current.limiter.instanceActive()).toBe(0);
  });

  it('lets reads through the fair share uncounted against its capacity (they still batch)', async () => {
    current = await serverWith({
      perCredential: 50,
      perOrganization: 50,
      capacity: 1,
      reserved: 1,
      queueMs: 5_000,
    });
    const reads = Array.from({ length: 4 }, () => current!.get('/slow', a1));
    await until(() => current!.heldCount() === 4);
    expect(current.limiter.instanceActive()).toBe(0);
    while (current.heldCount() > 0) current.releaseOne();
    for (const answer of await Promise.all(reads)) expect(answer.status).toBe(200);
  });

  it('sheds the heaviest organization first when overloaded, and serves a light one', async () => {
    current = await serverWith({ perCredential: 50, perOrganization: 50, queueMs: 1_000 });
    const flood = Array.from({ length: 4 }, () => current!.get('/slow', a1));
    await until(() => current!.heldCount() === 4);
    const quiet = current.get('/slow', b1);
    await until(() => current!.heldCount() === 5);
    const shed = await current.get('/fast', { ...a2, 'x-overloaded': '1' });
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('2');
    expect(((await shed.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
    expect((await current.get('/fast', { ...b1, 'x-overloaded': '1' })).status).toBe(200);
    while (current.heldCount() > 0) current.releaseOne();
    await Promise.all([...flood, quiet]);
  });
});
