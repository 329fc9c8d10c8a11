import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyEntry, parseKeyRing } from '../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../src/lib/outbound/address-policy.js';
import { createEventSweep } from '../src/modules/events/event-sweep.js';
import { EVENT_TYPES } from '../src/modules/events/event-types.js';
import { expertBody, keyPath, published, uniqueName } from './registry/helpers.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { type Receiver, startReceiver, status, verify } from './support/webhook-receiver.js';

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startServer({
    keyRing: parseKeyRing(generateKeyEntry('k1')),
    webhooks: {
      allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance,
      worker: { pollIntervalMs: 50 },
    },
  });
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

async function endpoint(org: TestOrganization, path: string, eventTypes: readonly string[]) {
  const res = await server.request<{ data: { endpoint: { id: string }; secret: string } }>(
    'POST',
    '/api/v1/webhook-endpoints',
    { key: org.ownerKey, body: { url: receiver.url(path), eventTypes } },
  );
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

describe('every event type a test can cause arrives once, signed, as the events API shows it', () => {
  it('experts, API keys (also expiring), members, plan thresholds, a disabled endpoint', async () => {
    const org = await createOrganization(server, 'personal', undefined, { planLimits: 'plan' });
    // The owner's first key was created with the organization, before any endpoint: not delivered.
    const before = (
      await server.request<{ data: Array<{ id: string }> }>('GET', '/api/v1/events?limit=100', {
        key: org.ownerKey,
      })
    ).body.data.map((event) => event.id);
    const all = await endpoint(org, '/all', EVENT_TYPES);
    const gone = await endpoint(org, '/gone', ['api_key.revoked']);
    receiver.respond('/gone', status(410));

    const name = uniqueName('evt');
    await published(server, org.ownerKey, expertBody(name, '1.0.0'));
    const changed = await server.request('POST', keyPath(`${name}@1.0.0`), {
      key: org.ownerKey,
      body: { status: 'deprecated', tags: ['stable'] },
    });
    expect(changed.status, changed.text).toBe(200);
    await published(server, org.ownerKey, expertBody(name, '1.1.0'));
    expect((await server.request('DELETE', keyPath(`${name}@1.0.0`), { key: org.ownerKey })).status).toBe(
      200,
    );
    const takedown = await server.admin(
      'POST',
      `/admin/v1/registry/experts/${encodeURIComponent(`${name}@1.1.0`)}/takedown`,
      { reason: 'a test takedown' },
    );
    expect(takedown.status, takedown.text).toBe(200);
    const memberId = await addMember(server, org, 'member');
    const role = await server.request('PUT', `/api/v1/organizations/${org.slug}/members/${memberId}`, {
      key: org.ownerKey,
      body: { role: 'admin' },
    });
    expect(role.status, role.text).toBe(200);
    const expiring = await createKey(server, org, org.ownerId, undefined, {
      expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    });
    // The free plan allows five keys: the owner's, the expiring one and two more are four, 80 %.
    await createKey(server, org, org.ownerId);
    await createKey(server, org, org.ownerId);
    const revoked = await createKey(server, org, org.ownerId);
    expect(
      (await server.request('DELETE', `/api/v1/api-keys/${revoked.id}`, { key: org.ownerKey })).status,
    ).toBe(200);
    const removed = await server.request('DELETE', `/api/v1/organizations/${org.slug}/members/${memberId}`, {
      key: org.ownerKey,
    });
    expect(removed.status, removed.text).toBe(200);
    const { context } = server;
    await createEventSweep({
      database: context.database,
      clock: context.clock,
      entitlement: context.billing.planLimits.entitlement,
      usage: context.billing.usage,
    }).sweepOnce();

    // webhook_endpoint.disabled comes once the worker's delivery of api_key.revoked got its 410: wait for it.
    const readEvents = async () =>
      (
        await server.request<{ data: Array<{ id: string; type: string }> }>(
          'GET',
          '/api/v1/events?limit=100&order=oldest',
          { key: org.ownerKey },
        )
      ).body.data;
    await expect
      .poll(async () => (await readEvents()).map((event) => event.type), { timeout: 20_000 })
      .toContain('webhook_endpoint.disabled');
    const expected = await readEvents();
    const caused = new Set(expected.map((event) => event.type));
    for (const type of [
      'expert.published',
      'expert.status_changed',
      'expert.tags_changed',
      'expert.deleted',
      'expert.taken_down',
      'api_key.created',
      'api_key.revoked',
      'api_key.expiring',
      'member.joined',
      'member.role_changed',
      'member.removed',
      'usage.threshold_reached',
      'webhook_endpoint.disabled',
    ]) {
      expect(caused, type).toContain(type);
    }
    // The disabled endpoint's own event is recorded once its 410 came back: wait for all of them.
    const until = Date.now() + 20_000;
    let latest = expected;
    while (Date.now() < until) {
      latest = (
        await server.request<{ data: Array<{ id: string; type: string }> }>(
          'GET',
          '/api/v1/events?limit=100&order=oldest',
          { key: org.ownerKey },
        )
      ).body.data.filter((event) => !before.includes(event.id));
      const arrived = new Set(receiver.at('/all').map((entry) => entry.event.id));
      if (latest.every((event) => arrived.has(event.id))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const entries = receiver.at('/all');
    for (const entry of entries) verify(all.secret, entry);
    // Each event once, as the events API shows it (same id, type and payload).
    expect(entries.map((entry) => entry.event.id).sort()).toEqual(latest.map((event) => event.id).sort());
    const byId = new Map(entries.map((entry) => [entry.event.id, entry.event]));
    for (const event of latest) expect(byId.get(event.id)).toEqual(event);
    expect(receiver.at('/gone')).toHaveLength(1);
    expect(latest.find((event) => event.type === 'api_key.expiring')).toMatchObject({
      data: { apiKey: { id: expiring.id }, daysLeft: 7 },
    });
    expect(latest.find((event) => event.type === 'webhook_endpoint.disabled')).toMatchObject({
      data: { webhookEndpoint: { id: gone.endpoint.id } },
    });
  }, 60_000);
});
