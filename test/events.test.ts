import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventSweep } from '../src/modules/events/event-sweep.js';
import { recordEvent } from '../src/modules/events/events.repo.js';
import { expertBody, keyPath, published, uniqueName } from './registry/helpers.js';
import { expectApiError } from './support/assertions.js';
import {
  addMember,
  createKey,
  createOrganization,
  createProject,
  type TestOrganization,
} from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

interface Event {
  id: string;
  type: string;
  organizationId: string;
  actor: { kind: string; userId: string | null; apiKeyId: string | null };
  resource: { type: string; id: string };
  data: Record<string, unknown>;
  createdAt: string;
}
type Page = { data: Event[]; pagination: { limit: number; hasMore: boolean; nextCursor: string | null } };

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function eventsOf(o: TestOrganization, query = '?limit=100', key = o.ownerKey) {
  const res = await server.request<Page>('GET', `/api/v1/events${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** Runs `work` while any transaction writing `table` fails at commit, after all its statements ran. */
async function failingAtCommit(table: string, work: () => Promise<void>) {
  const { db } = server.context.database;
  await db.execute(sql`CREATE OR REPLACE FUNCTION refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'refused at commit'; END $$`);
  await db.execute(
    sql.raw(`CREATE CONSTRAINT TRIGGER refuse_commit AFTER INSERT OR UPDATE OR DELETE ON ${table}
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_commit()`),
  );
  try {
    await work();
  } finally {
    await db.execute(sql.raw(`DROP TRIGGER refuse_commit ON ${table}`));
  }
}

describe('events written with each change', () => {
  it('experts: published, status and tags changed, deleted, taken down — each with its documented payload', async () => {
    const o = await createOrganization(server);
    const name = uniqueName('evt');
    const expert = await published(server, o.ownerKey, expertBody(name, '1.0.0'));
    const patched = await server.request('POST', keyPath(`${name}@1.0.0`), {
      key: o.ownerKey,
      body: { status: 'deprecated', tags: ['stable'] },
    });
    expect(patched.status, patched.text).toBe(200);
    await published(server, o.ownerKey, expertBody(name, '1.1.0'));
    expect((await server.request('DELETE', keyPath(`${name}@1.0.0`), { key: o.ownerKey })).status).toBe(200);
    const takedown = await server.admin(
      'POST',
      `/admin/v1/registry/experts/${encodeURIComponent(`${name}@1.1.0`)}/takedown`,
      { reason: 'a test takedown' },
    );
    expect(takedown.status, takedown.text).toBe(200);

    const all = (await eventsOf(o, '?limit=100&order=oldest')).filter((event) =>
      event.type.startsWith('expert.'),
    );
    const ref = (version: string, id?: string) => ({ ...(id ? { id } : {}), name, version });
    expect(all.map((event) => [event.type, event.data])).toEqual([
      ['expert.published', { expert: ref('1.0.0', expert.id), tags: expect.any(Array) }],
      ['expert.status_changed', { expert: ref('1.0.0', expert.id), from: 'available', to: 'deprecated' }],
      ['expert.tags_changed', { expert: ref('1.0.0', expert.id), from: expect.any(Array), to: ['stable'] }],
      ['expert.published', { expert: { id: expect.any(String), ...ref('1.1.0') }, tags: expect.any(Array) }],
      ['expert.deleted', { expert: ref('1.0.0', expert.id) }],
      ['expert.taken_down', { expert: ref('1.1.0') }],
    ]);
    expect(all[0]).toMatchObject({
      organizationId: o.id,
      actor: { kind: 'apiKey', userId: o.ownerId, apiKeyId: expect.any(String) },
      resource: { type: 'expert', id: `${name}@1.0.0` },
    });
  });

  it('publish policies: a version awaiting approval, then approved or rejected (docs/registry.md)', async () => {
    const o = await createOrganization(server);
    const admin = (await createKey(server, o, await addMember(server, o, 'admin'))).key;
    const policy = await server.request('PUT', '/api/v1/organization/publish-policy', {
      key: o.ownerKey,
      body: { approvalRequiredForWidening: true },
    });
    expect(policy.status, policy.text).toBe(200);
    const name = uniqueName('evt-approval');
    await published(server, o.ownerKey, expertBody(name, '1.0.0'));
    const wider = (version: string, endpoint: string) =>
      expertBody(name, version, {
        skills: { ...expertBody(name).skills, search: { type: 'mcpSseSkill', endpoint } },
      });
    const first = await published(server, o.ownerKey, wider('1.1.0', 'https://a.example.com/sse'));
    const second = await published(server, o.ownerKey, wider('1.2.0', 'https://b.example.com/sse'));
    const decide = (id: string, decision: string) =>
      server.request('POST', `/api/v1/registry/approvals/${id}/${decision}`, { key: admin });
    expect((await decide(first.approval!.id, 'approve')).status).toBe(200);
    expect((await decide(second.approval!.id, 'reject')).status).toBe(200);

    const all = (await eventsOf(o, '?limit=100&order=oldest'))
      .filter((event) => event.type.startsWith('expert.'))
      .map((event) => [event.type, event.data]);
    const ref = (version: string) => ({ id: expect.any(String), name, version });
    expect(all).toEqual([
      ['expert.published', { expert: ref('1.0.0'), tags: expect.any(Array) }],
      ['expert.published', { expert: ref('1.1.0'), tags: [] }],
      [
        'expert.awaiting_approval',
        {
          expert: ref('1.1.0'),
          approval: { id: first.approval!.id, reasons: ['new skill "search" (mcpSseSkill)'] },
        },
      ],
      ['expert.published', { expert: ref('1.2.0'), tags: [] }],
      [
        'expert.awaiting_approval',
        {
          expert: ref('1.2.0'),
          approval: { id: second.approval!.id, reasons: ['new skill "search" (mcpSseSkill)'] },
        },
      ],
      ['expert.approved', { expert: ref('1.1.0'), approval: { id: first.approval!.id }, movedLatest: true }],
      ['expert.rejected', { expert: ref('1.2.0'), approval: { id: second.approval!.id } }],
    ]);
  });

  it('API keys, members and connections-by-cascade: created, revoked, joined, role changed, removed', async () => {
    const o = await createOrganization(server);
    const memberId = await addMember(server, o, 'member');
    const key = await createKey(server, o, memberId);
    const role = await server.request('PUT', `/api/v1/organizations/${o.slug}/members/${memberId}`, {
      key: o.ownerKey,
      body: { role: 'admin' },
    });
    expect(role.status, role.text).toBe(200);
    expect((await server.request('DELETE', `/api/v1/api-keys/${key.id}`, { key: o.ownerKey })).status).toBe(
      200,
    );
    const removed = await server.request('DELETE', `/api/v1/organizations/${o.slug}/members/${memberId}`, {
      key: o.ownerKey,
    });
    expect(removed.status, removed.text).toBe(200);

    const all = await eventsOf(o, '?limit=100&order=oldest');
    expect(all.map((event) => [event.type, event.data])).toEqual([
      ['api_key.created', { apiKey: { id: expect.any(String) } }], // the owner's first key
      ['member.joined', { member: { userId: memberId, role: 'member' } }],
      ['api_key.created', { apiKey: { id: key.id } }],
      ['member.role_changed', { member: { userId: memberId }, from: 'member', to: 'admin' }],
      ['api_key.revoked', { apiKey: { id: key.id } }],
      ['member.removed', { member: { userId: memberId, role: 'admin' } }],
    ]);
    // No payload holds a key's secret.
    expect(JSON.stringify(all)).not.toContain(key.key);
  });

  it('no event without its change, no change without its event: both commit or neither does', async () => {
    const o = await createOrganization(server);
    const before = await eventsOf(o);
    await failingAtCommit('events', async () => {
      const res = await server.request('POST', '/api/v1/api-keys', {
        key: o.ownerKey,
        body: { name: 'never', grants: { type: 'organization', permissions: ['experts:write'] } },
      });
      expect(res.status).toBe(500);
    });
    expect(await eventsOf(o)).toEqual(before);
    const keys = await server.request<{ apiKeys: Array<{ name: string | null }> }>(
      'GET',
      '/api/v1/api-keys?limit=100',
      {
        key: o.ownerKey,
      },
    );
    expect(keys.status, keys.text).toBe(200);
    expect(keys.body.apiKeys.map((k) => k.name)).not.toContain('never');
  });

  it('a sweep event with a dedupe key is written once, however often it is recorded', async () => {
    const o = await createOrganization(server);
    const write = () =>
      recordEvent(server.context.database.db, {
        organizationId: o.id,
        type: 'api_key.expiring',
        actor: { kind: 'system' },
        resource: { type: 'apiKey', id: 'k' },
        payload: { apiKey: { id: 'k' }, daysLeft: 7 },
        at: new Date(),
        dedupeKey: `api_key.expiring:k:7:${o.id}`,
      });
    expect(await Promise.all([write(), write(), write()])).toEqual(
      expect.arrayContaining([true, false, false]),
    );
    expect((await eventsOf(o, '?type=api_key.expiring')).length).toBe(1);
  });
});

describe('GET /api/v1/events', () => {
  it("pages with a cursor newest or oldest first, filters by types, stays in the credential's organization", async () => {
    const o = await createOrganization(server);
    const other = await createOrganization(server);
    for (let i = 0; i < 4; i++) await createKey(server, o, o.ownerId);
    await addMember(server, o, 'member');
    const newest = await eventsOf(o);
    expect(newest).toHaveLength(6);
    expect(newest.every((event) => event.organizationId === o.id)).toBe(true);
    const oldest = await eventsOf(o, '?order=oldest');
    expect(oldest.map((event) => event.id)).toEqual([...newest].reverse().map((event) => event.id));

    for (const order of ['newest', 'oldest'] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=4&order=${order}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await server.request<Page>('GET', `/api/v1/events${query}`, { key: o.ownerKey });
        expect(res.status, res.text).toBe(200);
        seen.push(...res.body.data.map((event) => event.id));
        cursor = res.body.pagination.nextCursor;
      } while (cursor);
      expect(seen).toEqual((order === 'newest' ? newest : oldest).map((event) => event.id));
    }

    expect((await eventsOf(o, '?type=member.joined')).map((event) => event.type)).toEqual(['member.joined']);
    expect(await eventsOf(o, '?type=member.joined,api_key.created')).toHaveLength(6);
    expect(await eventsOf(o, '?type=expert.deleted')).toEqual([]);
    expect((await eventsOf(other)).map((event) => event.organizationId)).toEqual([other.id]);
  });

  it('owners and admins read them (events:read); members and keys without it get 403; bad queries 422', async () => {
    const o = await createOrganization(server);
    const adminKey = await createKey(server, o, await addMember(server, o, 'admin'));
    expect((await server.request('GET', '/api/v1/events', { key: adminKey.key })).status).toBe(200);
    const memberKey = await createKey(server, o, await addMember(server, o, 'member'));
    expectApiError(await server.request('GET', '/api/v1/events', { key: memberKey.key }), 403, 'forbidden');
    const only = await createKey(server, o, o.ownerId, {
      type: 'organization',
      permissions: ['events:read'],
    });
    expect((await server.request('GET', '/api/v1/events', { key: only.key })).status).toBe(200);
    const { project } = await createProject(server, o);
    const projectKey = await createKey(server, o, o.ownerId, {
      type: 'project',
      projectIds: [project.id],
      permissions: ['projects:read'],
    });
    expectApiError(await server.request('GET', '/api/v1/events', { key: projectKey.key }), 403, 'forbidden');
    expectApiError(await server.request('GET', '/api/v1/events'), 401, 'unauthorized');
    for (const query of [
      '?type=nothing.happened',
      '?order=sideways',
      '?cursor=bm9wZQ',
      '?limit=0',
      '?what=1',
    ]) {
      expectApiError(
        await server.request('GET', `/api/v1/events${query}`, { key: o.ownerKey }),
        422,
        'validation_failed',
      );
    }
  });
});

describe('events time causes: api_key.expiring and usage.threshold_reached', () => {
  it('are written once each, at the tightest notice reached, however many sweeps run at once', async () => {
    const o = await createOrganization(server, 'personal', undefined, { planLimits: 'plan' });
    const { context } = server;
    let now = Date.now();
    const sweep = createEventSweep({
      database: context.database,
      clock: { now: () => new Date(now) },
      entitlement: context.billing.planLimits.entitlement,
      usage: context.billing.usage,
    });
    const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
    const week = await createKey(server, o, o.ownerId, undefined, { expiresAt: inDays(6) });
    const hours = await createKey(server, o, o.ownerId, undefined, { expiresAt: inDays(0.5) });
    await createKey(server, o, o.ownerId, undefined, { expiresAt: inDays(30) });
    // Four keys of the free plan's five: 80 %.
    await Promise.all([sweep.sweepOnce(), sweep.sweepOnce(), sweep.sweepOnce()]);
    const expiring = await eventsOf(o, '?type=api_key.expiring&order=oldest');
    expect(
      expiring.map((event) => event.data).sort((a, b) => Number(a.daysLeft) - Number(b.daysLeft)),
    ).toEqual([
      { apiKey: { id: hours.id, name: null, expiresAt: expect.any(String) }, daysLeft: 1 },
      { apiKey: { id: week.id, name: null, expiresAt: expect.any(String) }, daysLeft: 7 },
    ]);
    const usage = () => eventsOf(o, '?type=usage.threshold_reached&order=oldest');
    expect((await usage()).map((event) => event.data)).toEqual([
      {
        limit: 'apiKeys',
        threshold: 80,
        used: 4,
        allowed: 5,
        periodStart: expect.any(String),
        periodEnd: expect.any(String),
      },
    ]);
    expect((await usage())[0]).toMatchObject({
      actor: { kind: 'system' },
      resource: { type: 'organization', id: o.id },
    });

    // Five days later the first key is a day from expiry; a fifth key reaches 100 %.
    now += 5.5 * 86_400_000;
    await createKey(server, o, o.ownerId);
    await sweep.sweepOnce();
    await sweep.sweepOnce();
    expect(
      (await eventsOf(o, '?type=api_key.expiring&order=oldest')).map((event) => [
        event.resource.id,
        event.data.daysLeft,
      ]),
    ).toEqual(
      expect.arrayContaining([
        [week.id, 1],
        [week.id, 7],
        [hours.id, 1],
      ]),
    );
    expect(await eventsOf(o, '?type=api_key.expiring')).toHaveLength(3);
    expect((await usage()).map((event) => [event.data.limit, event.data.threshold])).toEqual([
      ['apiKeys', 80],
      ['apiKeys', 100],
    ]);
  });
});
