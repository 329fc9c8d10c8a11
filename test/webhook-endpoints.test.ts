import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyEntry, parseKeyRing } from '../src/lib/key-ring.js';
import { LOOPBACK_ALLOWANCE } from '../src/lib/outbound/address-policy.js';
import { secretAad } from '../src/modules/webhooks/webhooks.service.js';
import { webhookEndpoints } from '../src/modules/webhooks/webhooks.tables.js';
import { expectApiError } from './support/assertions.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

interface Endpoint {
  id: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  secretRotation: { previousSecretExpiresAt: string } | null;
}
type Created = { data: { endpoint: Endpoint; secret: string } };

const keyRing = parseKeyRing(generateKeyEntry('k1'));
let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer({ keyRing });
  org = await createOrganization(server);
});
afterAll(() => server.close());

const create = (body: Record<string, unknown>, key = org.ownerKey) =>
  server.request<Created>('POST', '/api/v1/webhook-endpoints', { key, body });

async function storedRow(id: string) {
  const [row] = await server.context.database.db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.id, id));
  return row!;
}

describe('webhook endpoints', () => {
  it('creates one with its secret shown once, kept encrypted; lists, reads, changes and deletes it', async () => {
    const created = await create({
      url: 'https://ci.example.com/hooks',
      eventTypes: ['expert.published', 'member.joined'],
      description: 'CI',
    });
    expect(created.status, created.text).toBe(201);
    const { endpoint, secret } = created.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({
      url: 'https://ci.example.com/hooks',
      eventTypes: ['expert.published', 'member.joined'],
      description: 'CI',
      enabled: true,
      disabledReason: null,
      secretRotation: null,
    });
    // The secret is signable with Standard Webhooks, stored only encrypted, and never read back.
    expect(() => new Webhook(secret)).not.toThrow();
    const row = await storedRow(endpoint.id);
    expect(row.secretCiphertext).not.toContain(secret.slice(6, 20));
    expect(keyRing.decrypt(row.secretCiphertext, secretAad(endpoint.id, 'secret'))).toBe(secret);
    const list = await server.request<{ data: Endpoint[] }>('GET', '/api/v1/webhook-endpoints', {
      key: org.ownerKey,
    });
    expect(list.status).toBe(200);
    expect(list.body.data.map((e) => e.id)).toContain(endpoint.id);
    expect(list.text).not.toContain(secret);
    const one = await server.request<{ data: Endpoint }>('GET', `/api/v1/webhook-endpoints/${endpoint.id}`, {
      key: org.ownerKey,
    });
    expect(one.body.data).toEqual(endpoint);

    const patched = await server.request<{ data: Endpoint }>(
      'PATCH',
      `/api/v1/webhook-endpoints/${endpoint.id}`,
      {
        key: org.ownerKey,
        body: { enabled: false, eventTypes: ['expert.deleted'] },
      },
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({
      enabled: false,
      eventTypes: ['expert.deleted'],
      url: endpoint.url,
    });

    const deleted = await server.request('DELETE', `/api/v1/webhook-endpoints/${endpoint.id}`, {
      key: org.ownerKey,
    });
    expect(deleted.status, deleted.text).toBe(200);
    expectApiError(
      await server.request('GET', `/api/v1/webhook-endpoints/${endpoint.id}`, { key: org.ownerKey }),
      404,
      'not_found',
    );
    const audit = await server.request<{ data: Array<{ action: string; target: { id: string } }> }>(
      'GET',
      `/api/v1/organizations/${org.id}/audit-events?limit=100`,
      { key: org.ownerKey },
    );
    expect(audit.body.data.filter((e) => e.target.id === endpoint.id).map((e) => e.action)).toEqual([
      'webhook_endpoint.deleted',
      'webhook_endpoint.updated',
      'webhook_endpoint.created',
    ]);
    expect(audit.text).not.toContain(secret);
  });

  it('rotating gives a new secret once; the previous one keeps signing for 24 hours', async () => {
    const created = await create({ url: 'https://hooks.example.com/x', eventTypes: ['api_key.created'] });
    const { endpoint, secret: first } = created.body.data;
    const rotated = await server.request<Created>(
      'POST',
      `/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
      {
        key: org.ownerKey,
      },
    );
    expect(rotated.status, rotated.text).toBe(200);
    const second = rotated.body.data.secret;
    expect(second).not.toBe(first);
    const until = Date.parse(rotated.body.data.endpoint.secretRotation!.previousSecretExpiresAt);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
    const row = await storedRow(endpoint.id);
    expect(keyRing.decrypt(row.secretCiphertext, secretAad(endpoint.id, 'secret'))).toBe(second);
    // The retired secrets, each with its own expiry (a JSON list, encrypted).
    expect(
      JSON.parse(keyRing.decrypt(row.previousSecretCiphertext!, secretAad(endpoint.id, 'previous_secret'))),
    ).toEqual([{ secret: first, expiresAt: new Date(until).toISOString() }]);
  });

  it('refuses plain http, credentials in the URL, unknown or no event types, and more than 16 endpoints', async () => {
    for (const body of [
      { url: 'http://ci.example.com/hooks', eventTypes: ['expert.published'] },
      { url: 'https://user:pass@ci.example.com/hooks', eventTypes: ['expert.published'] },
      { url: 'not a url', eventTypes: ['expert.published'] },
      { url: 'https://ci.example.com/hooks', eventTypes: ['nothing.happened'] },
      { url: 'https://ci.example.com/hooks', eventTypes: [] },
      { url: 'https://ci.example.com/hooks', eventTypes: ['expert.published', 'expert.published'] },
      { url: 'https://ci.example.com/hooks', eventTypes: ['expert.published'], secret: 'mine' },
    ]) {
      expectApiError(await create(body), 422, 'validation_failed');
    }
    const o = await createOrganization(server);
    for (let i = 0; i < 16; i++) {
      const res = await create(
        { url: `https://ci.example.com/${i}`, eventTypes: ['expert.published'] },
        o.ownerKey,
      );
      expect(res.status, res.text).toBe(201);
    }
    expectApiError(
      await create({ url: 'https://ci.example.com/17', eventTypes: ['expert.published'] }, o.ownerKey),
      409,
      'conflict',
    );
  });

  it('a private or loopback address written in the URL is refused at creation, naming the settings that allow it', async () => {
    for (const url of [
      'https://127.0.0.1:8443/hooks',
      'https://[::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://10.0.0.7/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://localhost/hooks',
      'https://hooks.localhost/hooks',
    ]) {
      const res = await create({ url, eventTypes: ['expert.published'] });
      expectApiError(res, 422, 'validation_failed');
      expect(res.text, url).toContain('CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS');
      expect(res.text, url).toContain('CADRE_DEV=1');
    }
    const http = await create({ url: 'http://ci.example.com/hooks', eventTypes: ['expert.published'] });
    expect(http.text).toContain('CADRE_DEV=1');
  });

  it('with loopback allowed (CADRE_DEV=1), https and http to 127.0.0.1 are accepted; other private addresses still refused', async () => {
    const dev = await startServer({ keyRing, webhooks: { allowedPrivateHosts: LOOPBACK_ALLOWANCE } });
    try {
      const o = await createOrganization(dev);
      const make = (url: string) =>
        dev.request<Created>('POST', '/api/v1/webhook-endpoints', {
          key: o.ownerKey,
          body: { url, eventTypes: ['expert.published'] },
        });
      for (const url of [
        'https://127.0.0.1:8443/hooks',
        'http://127.0.0.1:8080/hooks',
        'http://localhost/h',
      ]) {
        const res = await make(url);
        expect(res.status, res.text).toBe(201);
      }
      expectApiError(await make('https://10.0.0.7/hooks'), 422, 'validation_failed');
    } finally {
      await dev.close();
    }
  });

  it('owners and admins manage them (webhooks:manage); members get 403; another organization sees 404', async () => {
    const adminKey = await createKey(server, org, await addMember(server, org, 'admin'));
    const byAdmin = await create(
      { url: 'https://a.example.com/', eventTypes: ['member.removed'] },
      adminKey.key,
    );
    expect(byAdmin.status, byAdmin.text).toBe(201);
    const memberKey = await createKey(server, org, await addMember(server, org, 'member'));
    expectApiError(
      await create({ url: 'https://m.example.com/', eventTypes: ['member.removed'] }, memberKey.key),
      403,
      'forbidden',
    );
    expectApiError(
      await server.request('GET', '/api/v1/webhook-endpoints', { key: memberKey.key }),
      403,
      'forbidden',
    );
    const other = await createOrganization(server);
    const id = byAdmin.body.data.endpoint.id;
    for (const [method, path] of [
      ['GET', `/api/v1/webhook-endpoints/${id}`],
      ['DELETE', `/api/v1/webhook-endpoints/${id}`],
      ['POST', `/api/v1/webhook-endpoints/${id}/rotate-secret`],
    ] as const) {
      expectApiError(await server.request(method, path, { key: other.ownerKey }), 404, 'not_found');
    }
    const theirs = await server.request<{ data: Endpoint[] }>('GET', '/api/v1/webhook-endpoints', {
      key: other.ownerKey,
    });
    expect(theirs.body.data).toEqual([]);
  });

  it('without a key ring, creating answers 503 not_configured', async () => {
    const bare = await startServer();
    try {
      const o = await createOrganization(bare);
      const res = await bare.request('POST', '/api/v1/webhook-endpoints', {
        key: o.ownerKey,
        body: { url: 'https://ci.example.com/', eventTypes: ['expert.published'] },
      });
      expectApiError(res, 503, 'service_unavailable');
    } finally {
      await bare.close();
    }
  });
});
