import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createManualClock } from '../src/lib/clock.js';
import type {
  apiKeyListSchema,
  apiKeySchema,
  createdApiKeySchema,
} from '../src/modules/api-keys/api-keys.schemas.js';
import type { Grant, Permission } from '../src/modules/auth/grants.js';
import type { agentSchema } from '../src/modules/tenancy/tenancy.schemas.js';
import type { DataOf } from './support/answers.js';
import { expectApiError } from './support/assertions.js';
import {
  addMember,
  createKey,
  createOrganization,
  createProject,
  type TestOrganization,
} from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

const clock = createManualClock(new Date('2026-06-01T00:00:00.000Z'));
let server: TestServer;
let org: TestOrganization;
let other: TestOrganization;
let memberId: string;
let adminId: string;

beforeAll(async () => {
  server = await startServer({ clock });
  org = await createOrganization(server, 'team');
  other = await createOrganization(server, 'team');
  memberId = await addMember(server, org, 'member');
  adminId = await addMember(server, org, 'admin');
});
afterAll(() => server.close());

type Created = DataOf<typeof createdApiKeySchema>;
type Read = DataOf<typeof apiKeySchema>;
type KeyList = z.infer<typeof apiKeyListSchema>;
const orgGrant = (...permissions: Array<Permission | '*'>): Grant => ({ type: 'organization', permissions });

describe('POST /api/v1/api-keys', () => {
  it('creates a key for the caller, shows the secret once, and the new key works', async () => {
    const res = await server.request<Created>('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      body: { name: 'deploy', grants: orgGrant('experts:write') },
    });
    expect(res.status).toBe(200);
    const created = res.body.data;
    expect(created).toMatchObject({ userId: org.ownerId, expiresAt: null, revokedAt: null });
    expect(created.key).toMatch(/^cadre_[0-9A-Za-z]{40}$/);
    const read = await server.request<Read>('GET', `/api/v1/api-keys/${created.id}`, { key: created.key });
    expect(read.status).toBe(403); // its grant does not include api-keys:read
    const again = await server.request<Read>('GET', `/api/v1/api-keys/${created.id}`, {
      key: org.ownerKey,
    });
    expect(again.body.data).not.toHaveProperty('key');
    expect(again.text).not.toContain(created.key);
  });

  it("does not inherit the calling key's grants or expiry", async () => {
    const narrow = await createKey(server, org, org.ownerId, orgGrant('api-keys:create'), {
      expiresIn: 3600,
    });
    const res = await server.request<Created>('POST', '/api/v1/api-keys', {
      key: narrow.key,
      body: { grants: orgGrant('billing:read', 'experts:write') },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.expiresAt).toBeNull();
  });

  it('never grants beyond the calling user role (403)', async () => {
    const memberKey = await createKey(server, org, memberId, orgGrant('*'));
    expectApiError(
      await server.request('POST', '/api/v1/api-keys', {
        key: memberKey.key,
        body: { grants: orgGrant('billing:manage') },
      }),
      403,
      'forbidden',
    );
    const ok = await server.request('POST', '/api/v1/api-keys', {
      key: memberKey.key,
      body: { grants: orgGrant('experts:write', 'billing:read') },
    });
    expect(ok.status).toBe(200);
  });

  it('"*" is everything the role allows, for every role: a member and an admin get exactly their role', async () => {
    for (const [userId, refused, allowed] of [
      [memberId, 'billing:manage', 'experts:write'],
      [adminId, 'experts:delete', 'members:manage'],
    ] as const) {
      const creator = await createKey(server, org, userId, orgGrant('api-keys:create'));
      const res = await server.request<Created>('POST', '/api/v1/api-keys', {
        key: creator.key,
        body: { name: 'everything', grants: orgGrant('*') },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const me = await server.request<{ data: { permissions: string[] } }>('GET', '/api/v1/me', {
        key: res.body.data.key,
      });
      expect(me.body.data.permissions).toContain(allowed);
      expect(me.body.data.permissions).not.toContain(refused);
    }
  });

  it('accepts each grant variant with ids of its own organization, and rejects foreign ids with 422', async () => {
    const { project, environments } = await createProject(server, org);
    const agent = await server.admin<{ data: { agent: z.infer<typeof agentSchema> } }>(
      'POST',
      `/admin/v1/projects/${project.id}/agents`,
      { name: 'bot' },
    );
    const grants: Grant[] = [
      { type: 'project', projectIds: [project.id], permissions: ['projects:operate'] },
      { type: 'environment', environmentIds: [environments[0]!.id], permissions: ['projects:operate'] },
      { type: 'agent', agentIds: [agent.body.data.agent.id], permissions: ['agents:run'] },
    ];
    for (const grant of grants) {
      const res = await server.request('POST', '/api/v1/api-keys', {
        key: org.ownerKey,
        body: { grants: grant },
      });
      expect(res.status, JSON.stringify(grant)).toBe(200);
    }
    const foreign = await createProject(server, other);
    const res = await server.request('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      body: { grants: { type: 'project', projectIds: [foreign.project.id], permissions: ['agents:run'] } },
    });
    expectApiError(res, 422, 'validation_failed');
    expect(res.text).toContain('grants.projectIds.0');
  });

  it.each([
    ['both expiresIn and expiresAt', { expiresIn: 3600, expiresAt: '2030-01-01T00:00:00Z' }],
    ['expiresIn below 60 s', { expiresIn: 59 }],
    ['expiresIn not an integer', { expiresIn: 60.5 }],
    ['expiresAt in the past', { expiresAt: '2020-01-01T00:00:00Z' }],
    ['expiresAt not a timestamp', { expiresAt: 'tomorrow' }],
    ['an unknown field', { colour: 'blue' }],
    ['no grants', { grants: undefined }],
  ])('rejects %s with 422', async (_name, extra) => {
    const res = await server.request('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      body: { grants: orgGrant('billing:read'), ...extra },
    });
    expectApiError(res, 422, 'validation_failed');
  });

  it('stops accepting a key created with expiresIn: 60 once 60 s have passed', async () => {
    const res = await server.request<Created>('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      body: { grants: orgGrant('api-keys:read'), expiresIn: 60 },
    });
    const key = res.body.data.key!;
    clock.advance(59_000);
    expect((await server.request('GET', '/api/v1/api-keys', { key })).status).toBe(200);
    clock.advance(1_000);
    const expired = await server.request<{ error: { message: string } }>('GET', '/api/v1/api-keys', { key });
    expectApiError(expired, 401, 'unauthorized');
    // Its holder is told what happened (and what to do), not that the key is unknown.
    expect(expired.body.error.message).toMatch(/^This API key has expired/);
    expect(expired.body.error.message).toContain('cadre login');
    const unknown = await server.request<{ error: { message: string } }>('GET', '/api/v1/api-keys', {
      key: `${key.slice(0, -4)}zzzz`,
    });
    expect(unknown.body.error.message).not.toMatch(/expired/);
  });

  it('honours expiresAt: null as no expiry and a future expiresAt as given', async () => {
    const at = new Date(clock.now().getTime() + 86_400_000).toISOString();
    const res = await server.request<Created>('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      body: { grants: orgGrant('billing:read'), expiresAt: at },
    });
    expect(res.body.data.expiresAt).toBe(at);
    const never = await server.request<Created>('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      body: { grants: orgGrant('billing:read'), expiresAt: null },
    });
    expect(never.body.data.expiresAt).toBeNull();
  });
});

describe('GET / DELETE /api/v1/api-keys/{id}', () => {
  it('revokes idempotently and keeps the record readable and listed', async () => {
    const target = await createKey(server, org, org.ownerId);
    const first = await server.request<Read>('DELETE', `/api/v1/api-keys/${target.id}`, {
      key: org.ownerKey,
    });
    expect(first.status).toBe(200);
    expect(first.body.data.revokedAt).not.toBeNull();
    clock.advance(5_000);
    const second = await server.request<Read>('DELETE', `/api/v1/api-keys/${target.id}`, {
      key: org.ownerKey,
    });
    expect(second.status).toBe(200);
    expect(second.body.data.revokedAt).toBe(first.body.data.revokedAt);
    const read = await server.request<Read>('GET', `/api/v1/api-keys/${target.id}`, { key: org.ownerKey });
    expect(read.body.data.revokedAt).toBe(first.body.data.revokedAt);
    expectApiError(await server.request('GET', '/api/v1/api-keys', { key: target.key }), 401, 'unauthorized');
  });

  it('supports rotation: create the replacement with the old key, then revoke the old key', async () => {
    const old = await createKey(server, org, org.ownerId);
    const replacement = await server.request<Created>('POST', '/api/v1/api-keys', {
      key: old.key,
      body: { name: 'rotated', grants: orgGrant('*') },
    });
    expect(
      (await server.request('DELETE', `/api/v1/api-keys/${old.id}`, { key: replacement.body.data.key }))
        .status,
    ).toBe(200);
    expect((await server.request('GET', '/api/v1/api-keys', { key: replacement.body.data.key })).status).toBe(
      200,
    );
    expectApiError(await server.request('GET', '/api/v1/api-keys', { key: old.key }), 401, 'unauthorized');
  });

  it('writes an audit event for each create and revoke, listed by the admin API', async () => {
    const target = await createKey(server, org, org.ownerId);
    await server.request('DELETE', `/api/v1/api-keys/${target.id}`, { key: org.ownerKey });
    const res = await server.admin<{ data: { events: Array<Record<string, string>> } }>(
      'GET',
      `/admin/v1/organizations/${org.id}/audit-events`,
    );
    const forTarget = res.body.data.events.filter((event) => event.targetId === target.id);
    expect(forTarget.map((event) => event.action).sort()).toEqual(['api_key.created', 'api_key.revoked']);
    const revoked = forTarget.find((event) => event.action === 'api_key.revoked')!;
    expect(revoked).toMatchObject({ actorKind: 'apiKey', actorUserId: org.ownerId, targetType: 'apiKey' });
    expect(revoked.actorApiKeyId).toEqual(expect.any(String));
  });
});

describe('security table: every endpoint × every credential problem', () => {
  const endpoints: Array<{
    method: string;
    path: (id: string) => string;
    permission: Permission;
    body?: object;
  }> = [
    { method: 'GET', path: () => '/api/v1/api-keys', permission: 'api-keys:read' },
    {
      method: 'POST',
      path: () => '/api/v1/api-keys',
      permission: 'api-keys:create',
      body: { grants: orgGrant('billing:read') },
    },
    { method: 'GET', path: (id: string) => `/api/v1/api-keys/${id}`, permission: 'api-keys:read' },
    { method: 'DELETE', path: (id: string) => `/api/v1/api-keys/${id}`, permission: 'api-keys:revoke' },
  ];

  for (const endpoint of endpoints) {
    const name = `${endpoint.method} ${endpoint.path(':id')}`;
    it(`${name}: no, malformed, unknown, expired and revoked credentials → 401`, async () => {
      const target = await createKey(server, org, org.ownerId);
      const expired = await createKey(server, org, org.ownerId, orgGrant('*'), { expiresIn: 60 });
      clock.advance(61_000);
      const revoked = await createKey(server, org, org.ownerId);
      await server.request('DELETE', `/api/v1/api-keys/${revoked.id}`, { key: org.ownerKey });
      for (const key of [undefined, 'garbage', `cadre_${'x'.repeat(40)}`, expired.key, revoked.key]) {
        const res = await server.request(endpoint.method, endpoint.path(target.id), {
          key,
          body: endpoint.body,
        });
        expectApiError(res, 401, 'unauthorized');
      }
    });

    it(`${name}: a key without ${endpoint.permission} → 403; one with only it → allowed`, async () => {
      const target = await createKey(server, org, org.ownerId);
      const without = await createKey(server, org, org.ownerId, orgGrant('billing:read'));
      const res = await server.request(endpoint.method, endpoint.path(target.id), {
        key: without.key,
        body: endpoint.body,
      });
      expectApiError(res, 403, 'forbidden');
      const only = await createKey(server, org, org.ownerId, orgGrant(endpoint.permission));
      const ok = await server.request(endpoint.method, endpoint.path(target.id), {
        key: only.key,
        body: endpoint.body,
      });
      expect(ok.status).toBe(200);
    });

    it(`${name}: project, environment and agent grants never reach API keys → 403`, async () => {
      const target = await createKey(server, org, org.ownerId);
      const { project, environments } = await createProject(server, org);
      const scoped: Grant[] = [
        { type: 'project', projectIds: [project.id], permissions: ['projects:operate', 'agents:run'] },
        { type: 'environment', environmentIds: [environments[0]!.id], permissions: ['projects:operate'] },
      ];
      for (const grants of scoped) {
        const key = await createKey(server, org, org.ownerId, grants);
        const res = await server.request(endpoint.method, endpoint.path(target.id), {
          key: key.key,
          body: endpoint.body,
        });
        expectApiError(res, 403, 'forbidden');
      }
    });
  }

  it("answers another organization's key id 404 on get and revoke, exactly like an unknown id", async () => {
    const foreign = await createKey(server, other, other.ownerId);
    for (const method of ['GET', 'DELETE']) {
      const res = await server.request(method, `/api/v1/api-keys/${foreign.id}`, { key: org.ownerKey });
      expectApiError(res, 404, 'not_found');
      const unknown = await server.request(method, '/api/v1/api-keys/doesnotexist0000000000000', {
        key: org.ownerKey,
      });
      expectApiError(unknown, 404, 'not_found');
      expect((res.body as { error: { message: string } }).error.message).toContain(foreign.id);
    }
    expect((await server.request('GET', '/api/v1/api-keys', { key: foreign.key })).status).toBe(200);
  });

  it('each role: owners and admins reach every key; members only their own (403 on others, hidden in lists)', async () => {
    const ownerKeyRecord = await createKey(server, org, org.ownerId);
    const memberKey = await createKey(server, org, memberId, orgGrant('api-keys:read', 'api-keys:revoke'));
    const adminKey = await createKey(server, org, adminId, orgGrant('api-keys:read', 'api-keys:revoke'));
    expect(
      (await server.request('GET', `/api/v1/api-keys/${ownerKeyRecord.id}`, { key: adminKey.key })).status,
    ).toBe(200);
    expectApiError(
      await server.request('GET', `/api/v1/api-keys/${ownerKeyRecord.id}`, { key: memberKey.key }),
      403,
      'forbidden',
    );
    expectApiError(
      await server.request('DELETE', `/api/v1/api-keys/${ownerKeyRecord.id}`, { key: memberKey.key }),
      403,
      'forbidden',
    );
    expect(
      (await server.request('GET', `/api/v1/api-keys/${memberKey.id}`, { key: memberKey.key })).status,
    ).toBe(200);
    const listed = await server.request<KeyList>('GET', '/api/v1/api-keys?limit=100', {
      key: memberKey.key,
    });
    expect(new Set(listed.body.apiKeys.map((k) => k.userId))).toEqual(new Set([memberId]));
    const all = await server.request<KeyList>('GET', '/api/v1/api-keys?limit=100', {
      key: adminKey.key,
    });
    expect(new Set(all.body.apiKeys.map((k) => k.userId)).size).toBeGreaterThan(1);
  });
});

describe('GET /api/v1/api-keys pagination', () => {
  it('validates limit and cursor', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'cursor=%%%', 'cursor=bm9wZQ', 'other=1']) {
      expectApiError(
        await server.request('GET', `/api/v1/api-keys?${query}`, { key: org.ownerKey }),
        422,
        'validation_failed',
      );
    }
  });

  it("names a query parameter as docs/errors.md does: query.limit, not Fastify's querystring.limit", async () => {
    const res = await server.request<{ error: { details: Array<{ path: string }> } }>(
      'GET',
      '/api/v1/api-keys?limit=abc',
      { key: org.ownerKey },
    );
    expectApiError(res, 422, 'validation_failed');
    expect(res.body.error.details.map((detail) => detail.path)).toEqual(['query.limit']);
  });

  it('defaults to 20 per page', async () => {
    const fresh = await createOrganization(server, 'personal');
    await Promise.all(Array.from({ length: 22 }, () => createKey(server, fresh, fresh.ownerId)));
    const res = await server.request<KeyList>('GET', '/api/v1/api-keys', { key: fresh.ownerKey });
    expect(res.body.apiKeys).toHaveLength(20);
    expect(res.body.pagination).toMatchObject({ limit: 20, hasMore: true });
  });

  it('property: pages concatenated = every key exactly once, newest first, while keys are created between pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 }),
        async (initial, limit, createdBetweenPages) => {
          const fresh = await createOrganization(server, 'personal');
          // Several keys per clock tick: the id must break createdAt ties.
          for (let i = 0; i < initial; i++) {
            await createKey(server, fresh, fresh.ownerId);
            if (i % 3 === 0) clock.advance(1);
          }
          const existing = await server.context.apiKeys.list(
            {
              kind: 'apiKey',
              apiKeyId: 'x',
              userId: fresh.ownerId,
              organizationId: fresh.id,
              role: 'owner',
              grants: { type: 'organization', permissions: ['*'] },
            },
            { limit: 100 },
          );
          const expectedIds = existing.apiKeys.map((k) => k.id);
          const seen: KeyList['apiKeys'] = [];
          let cursor: string | null = null;
          let page = 0;
          do {
            const query: string = `limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
            const res = await server.request<KeyList>('GET', `/api/v1/api-keys?${query}`, {
              key: fresh.ownerKey,
            });
            seen.push(...res.body.apiKeys);
            cursor = res.body.pagination.nextCursor;
            const burst = createdBetweenPages[page++ % createdBetweenPages.length]!;
            await Promise.all(Array.from({ length: burst }, () => createKey(server, fresh, fresh.ownerId)));
            clock.advance(1);
          } while (cursor);
          const ids = seen.map((k) => k.id);
          expect(new Set(ids).size).toBe(ids.length);
          expect(ids).toEqual(expectedIds);
          const times = seen.map((k) => k.createdAt);
          expect([...times].sort().reverse()).toEqual(times);
        },
      ),
      { numRuns: 15 },
    );
  });
});
