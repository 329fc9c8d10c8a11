import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAuditEvent } from '../src/modules/audit/audit.repo.js';
import { expertBody, keyPath, publish, published, uniqueName } from './registry/helpers.js';
import { expectApiError, expectRegistryError } from './support/assertions.js';
import { runCli } from './support/cli-harness.js';
import {
  addMember,
  createKey,
  createOrganization,
  createProject,
  type TestOrganization,
  uniqueSlug,
} from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { login, setPassword } from './support/session.js';

interface AuditEvent {
  id: string;
  action: string;
  actor: { kind: string; userId: string | null; apiKeyId: string | null; name: string | null };
  target: { type: string; id: string };
  metadata: Record<string, unknown> | null;
  createdAt: string;
}
type Page = {
  data: AuditEvent[];
  pagination: { limit: number; hasMore: boolean; nextCursor: string | null };
};

let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer({ billing: { provider: 'local' } });
  org = await createOrganization(server, 'personal');
});
afterAll(() => server.close());

const auditPath = (o: { id: string } | string, query = '') =>
  `/api/v1/organizations/${typeof o === 'string' ? o : o.id}/audit-events${query}`;

async function events(o: TestOrganization, query = '?limit=100', key = o.ownerKey) {
  const res = await server.request<Page>('GET', auditPath(o, query), { key });
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

describe('GET /api/v1/organizations/{org}/audit-events', () => {
  it('lists the events newest first, in cursor pages, each with its actor, target and metadata', async () => {
    const o = await createOrganization(server, 'personal');
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push(await createKey(server, o, o.ownerId));
    const all = await events(o);
    // The owner's first key (created with the organization) and the five more: newest first.
    expect(all.map((event) => event.action)).toEqual(Array(6).fill('api_key.created'));
    expect(all.slice(0, 5).map((event) => event.target.id)).toEqual(keys.map((k) => k.id).reverse());
    expect(all[0]).toEqual({
      id: expect.any(String),
      action: 'api_key.created',
      actor: { kind: 'admin', userId: null, apiKeyId: null, name: null },
      // An unnamed key: no name to show.
      target: { type: 'apiKey', id: keys[4]!.id, name: null },
      metadata: null,
      references: [],
      createdAt: expect.any(String),
    });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await server.request<Page>('GET', auditPath(o, query), { key: o.ownerKey });
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.data.map((event) => event.id));
      cursor = res.body.pagination.nextCursor;
      expect(res.body.pagination.hasMore).toBe(cursor !== null);
      // Events written while paging never repeat or push others out.
      if (pages === 0) await createKey(server, o, o.ownerId);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all.map((event) => event.id));

    // The slug names the organization too.
    expect((await server.request<Page>('GET', auditPath(o.slug), { key: o.ownerKey })).status).toBe(200);
  });

  it('filters by action and by actor (a user id or an API key id)', async () => {
    const o = await createOrganization(server, 'personal');
    const memberId = await addMember(server, o, 'member');
    const memberKey = await createKey(server, o, memberId);
    const byMember = await server.request<{ data: { id: string } }>('POST', '/api/v1/api-keys', {
      key: memberKey.key,
      body: { name: 'from the member', grants: { type: 'organization', permissions: ['experts:write'] } },
    });
    expect(byMember.status, byMember.text).toBe(200);

    const created = await events(o, '?action=api_key.created');
    expect(created.map((event) => event.target.id)).toEqual([
      byMember.body.data.id,
      memberKey.id,
      expect.any(String),
    ]);
    expect((await events(o, '?action=membership.created')).map((event) => event.target.id)).toEqual([
      memberId,
    ]);
    expect(await events(o, '?action=nothing.happened')).toEqual([]);

    const byUser = await events(o, `?actor=${memberId}`);
    expect(byUser.map((event) => event.target.id)).toEqual([byMember.body.data.id]);
    // The member has no name: the audit log names them by email.
    expect(byUser[0]!.actor).toEqual({
      kind: 'apiKey',
      userId: memberId,
      apiKeyId: memberKey.id,
      name: expect.stringMatching(/^member-[0-9a-f]+@.+\.test$/),
    });
    expect((await events(o, `?actor=${memberKey.id}`)).map((event) => event.id)).toEqual(
      byUser.map((event) => event.id),
    );
    expect(await events(o, `?actor=${memberKey.id}&action=membership.created`)).toEqual([]);
  });

  it('owners and admins (keys or console sessions) read it; members and narrower keys get 403', async () => {
    const adminId = await addMember(server, org, 'admin');
    const memberId = await addMember(server, org, 'member');
    const adminKey = await createKey(server, org, adminId);
    expect((await server.request('GET', auditPath(org), { key: adminKey.key })).status).toBe(200);
    await setPassword(server, adminId);
    const adminEmail = (await server.context.tenancy.getUser(adminId)).email;
    const session = await login(server, adminEmail);
    expect(
      (await server.request('GET', auditPath(org), { headers: { cookie: session.cookie } })).status,
    ).toBe(200);

    const memberKey = await createKey(server, org, memberId);
    expectApiError(await server.request('GET', auditPath(org), { key: memberKey.key }), 403, 'forbidden');
    await setPassword(server, memberId);
    const memberSession = await login(server, (await server.context.tenancy.getUser(memberId)).email);
    expectApiError(
      await server.request('GET', auditPath(org), { headers: { cookie: memberSession.cookie } }),
      403,
      'forbidden',
    );

    // A key's grants narrow it: the owner's key without audit:read, a project key.
    const billingOnly = await createKey(server, org, org.ownerId, {
      type: 'organization',
      permissions: ['billing:read'],
    });
    expectApiError(await server.request('GET', auditPath(org), { key: billingOnly.key }), 403, 'forbidden');
    const auditOnly = await createKey(server, org, org.ownerId, {
      type: 'organization',
      permissions: ['audit:read'],
    });
    expect((await server.request('GET', auditPath(org), { key: auditOnly.key })).status).toBe(200);
    const { project } = await createProject(server, org);
    const projectKey = await createKey(server, org, org.ownerId, {
      type: 'project',
      projectIds: [project.id],
      permissions: ['projects:operate'],
    });
    expectApiError(await server.request('GET', auditPath(org), { key: projectKey.key }), 403, 'forbidden');
    // audit:read is an organization-wide permission: a project grant cannot carry it.
    const refused = await server.request('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      body: { grants: { type: 'project', projectIds: [project.id], permissions: ['audit:read'] } },
    });
    expectApiError(refused, 422, 'validation_failed');
    // A member cannot give a key what their role lacks.
    const beyond = await server.request('POST', '/api/v1/api-keys', {
      key: memberKey.key,
      body: { grants: { type: 'organization', permissions: ['audit:read'] } },
    });
    expectApiError(beyond, 403, 'forbidden');
  });

  it('no credential 401; another organization (id or slug) or an unknown one 404; bad queries 422', async () => {
    const other = await createOrganization(server, 'personal');
    expectApiError(await server.request('GET', auditPath(org)), 401, 'unauthorized');
    expectApiError(await server.request('GET', auditPath(org), { key: 'cadre_nope' }), 401, 'unauthorized');
    expectApiError(await server.request('GET', auditPath(other), { key: org.ownerKey }), 404, 'not_found');
    expectApiError(
      await server.request('GET', auditPath(other.slug), { key: org.ownerKey }),
      404,
      'not_found',
    );
    expectApiError(
      await server.request('GET', auditPath(uniqueSlug('none')), { key: org.ownerKey }),
      404,
      'not_found',
    );
    for (const query of ['?cursor=bm9wZQ', '?limit=0', '?limit=101', '?unknown=1', '?action=']) {
      expectApiError(
        await server.request('GET', auditPath(org, query), { key: org.ownerKey }),
        422,
        'validation_failed',
      );
    }
  });
});

describe('what the trail records, in the transaction of each change', () => {
  it('Expert versions published, updated (status, tags) and deleted', async () => {
    const o = await createOrganization(server, 'personal');
    const name = uniqueName('audited');
    await published(server, o.ownerKey, expertBody(name, '1.0.0', { tags: ['beta'] }));
    await published(server, o.ownerKey, expertBody(name, '1.1.0'));
    const update = (body: unknown) =>
      server.request('POST', keyPath(`${name}@1.0.0`), { key: o.ownerKey, body });
    expect((await update({ status: 'deprecated' })).status).toBe(200);
    expect((await update({ tags: ['stable'] })).status).toBe(200);
    expect((await server.request('DELETE', keyPath(`${name}@1.1.0`), { key: o.ownerKey })).status).toBe(200);

    const trail = (await events(o)).filter((event) => event.target.type === 'expert').reverse();
    expect(trail.map((event) => [event.action, event.target.id])).toEqual([
      ['expert.published', `${name}@1.0.0`],
      ['expert.published', `${name}@1.1.0`],
      ['expert.updated', `${name}@1.0.0`],
      ['expert.updated', `${name}@1.0.0`],
      ['expert.deleted', `${name}@1.1.0`],
    ]);
    expect(trail[0]!.metadata).toEqual({ expertId: expect.any(String), tags: ['beta'] });
    expect(trail[2]!.metadata).toMatchObject({ status: { from: 'available', to: 'deprecated' } });
    expect(trail[3]!.metadata).toMatchObject({ tags: { from: ['beta'], to: ['stable'] } });
    expect(trail[4]!.actor).toMatchObject({ kind: 'apiKey', userId: o.ownerId });

    // Refused changes record nothing.
    expectRegistryError(await publish(server, o.ownerKey, expertBody(name, '1.0.0')), 400);
    expectRegistryError(await update({ status: 'deprecated' }), 400);
    expect((await events(o)).filter((event) => event.target.type === 'expert')).toHaveLength(5);
  });

  it('members added and role changes, with the previous role; a refused change records nothing', async () => {
    const o = await createOrganization(server, 'personal');
    const userId = await addMember(server, o, 'member');
    const promoted = await server.admin('PUT', `/admin/v1/organizations/${o.id}/members/${userId}`, {
      role: 'admin',
    });
    expect(promoted.status, promoted.text).toBe(200);
    const owner = await server.admin('PUT', `/admin/v1/organizations/${o.id}/members/${o.ownerId}`, {
      role: 'member',
    });
    expectApiError(owner, 409, 'conflict');

    const trail = (await events(o)).filter((event) => event.target.type === 'user');
    expect(trail.map((event) => [event.action, event.target.id, event.metadata])).toEqual([
      ['membership.role_changed_to_admin', userId, { from: 'member', to: 'admin' }],
      ['membership.created', userId, { role: 'member' }],
    ]);
    expect(trail[0]!.actor).toEqual({ kind: 'admin', userId: null, apiKeyId: null, name: null });
  });

  it('a role change and its event commit together: refused at commit, neither stays', async () => {
    const o = await createOrganization(server, 'personal');
    const userId = await addMember(server, o, 'member');
    await failingAtCommit('memberships', async () => {
      const res = await server.admin('PUT', `/admin/v1/organizations/${o.id}/members/${userId}`, {
        role: 'admin',
      });
      expectApiError(res, 500, 'internal_error');
    });
    expect((await server.context.tenancy.getMembership(o.id, userId))?.role).toBe('member');
    expect(await events(o, '?action=membership.role_changed_to_admin')).toEqual([]);
  });

  it('subscription changes: the local checkout activates it, the portal schedules its cancellation', async () => {
    const o = await createOrganization(server, 'personal');
    const base = `/api/v1/organizations/${o.id}/billing`;
    const checkout = await server.request<{ data: { url: string } }>('POST', `${base}/checkout`, {
      key: o.ownerKey,
      headers: { 'idempotency-key': uniqueSlug('checkout') },
      body: {
        planKey: 'plus',
        successUrl: 'https://console.example.com/ok',
        cancelUrl: 'https://console.example.com/no',
      },
    });
    expect(checkout.status, checkout.text).toBe(200);

    // A confirmation refused at commit activates nothing and records nothing.
    await failingAtCommit('billing_subscriptions', async () => {
      const refused = await fetch(`${checkout.body.data.url}/confirm`, {
        method: 'POST',
        redirect: 'manual',
      });
      expect(refused.status).toBe(500);
    });
    expect(await events(o, '?action=subscription.created')).toEqual([]);

    const confirm = await fetch(`${checkout.body.data.url}/confirm`, { method: 'POST', redirect: 'manual' });
    expect(confirm.status).toBe(303);
    // Confirming again changes nothing, and records nothing.
    await fetch(`${checkout.body.data.url}/confirm`, { method: 'POST', redirect: 'manual' });
    const portal = await server.request<{ data: { url: string } }>('POST', `${base}/portal`, {
      key: o.ownerKey,
      headers: { 'idempotency-key': uniqueSlug('portal') },
      body: { returnUrl: 'https://console.example.com/billing' },
    });
    const cancel = await fetch(`${portal.body.data.url}/cancel`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(cancel.status).toBe(303);

    const trail = (await events(o)).filter((event) => event.target.type === 'subscription').reverse();
    expect(trail.map((event) => event.action)).toEqual(['subscription.created', 'subscription.updated']);
    expect(trail[0]).toMatchObject({
      actor: { kind: 'system', userId: o.ownerId, apiKeyId: null },
      target: { type: 'subscription', id: o.id },
      metadata: {
        source: 'checkout',
        from: null,
        to: { provider: 'local', planKey: 'plus', status: 'active', cancelAtPeriodEnd: false },
      },
    });
    expect(trail[1]!.metadata).toMatchObject({
      source: 'portal',
      from: { cancelAtPeriodEnd: false },
      to: { planKey: 'plus', status: 'active', cancelAtPeriodEnd: true },
    });
  });
});

describe('cadre audit', () => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(['audit', ...args], { cwd: process.cwd(), env: { CADRE_URL: server.url, ...env } });

  it('prints the events newest first, filtered by --action and --actor, following the pages; --json for scripts', async () => {
    const o = await createOrganization(server, 'personal');
    const memberId = await addMember(server, o, 'member');
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push(await createKey(server, o, o.ownerId));
    const env = { CADRE_API_KEY: o.ownerKey };

    const table = await cli(['--org', o.slug], env);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+ACTION\s+TARGET\s+ACTOR$/);
    expect(lines[1]).toContain(`apiKey:${keys[2]!.id}`);
    expect(lines.at(-2)).toContain(`user:${memberId}`);
    expect(table.stderr).toContain('5 events');

    const json = await cli(['--org', o.id, '--action', 'api_key.created', '--limit', '2', '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as AuditEvent[];
    expect(parsed.map((event) => event.target.id)).toEqual([keys[2]!.id, keys[1]!.id]);

    // More events than one page holds (100): the command follows the cursor, and stops at --limit.
    for (let i = 0; i < 120; i++) {
      await recordAuditEvent(server.context.database.db, {
        organizationId: o.id,
        action: 'test.bulk',
        actor: { kind: 'admin' },
        target: { type: 'test', id: String(i) },
        at: new Date(),
      });
    }
    const all = await cli(['--action', 'test.bulk', '--limit', '500', '--json'], env);
    expect((JSON.parse(all.stdout) as AuditEvent[]).map((event) => event.target.id)).toEqual(
      Array.from({ length: 120 }, (_, i) => String(119 - i)),
    );
    const some = await cli(['--action', 'test.bulk', '--limit', '105'], env);
    expect(some.stdout.trim().split('\n')).toHaveLength(106);
    expect(some.stderr).toContain('105 events (more: raise --limit)');
    const byActor = await cli(['--org', o.id, '--actor', memberId, '--json'], env);
    expect(JSON.parse(byActor.stdout)).toEqual([]);
  });

  it('exits 1 without a key, with a refused key, for a member or another organization', async () => {
    const o = await createOrganization(server, 'personal');
    const memberKey = await createKey(server, o, await addMember(server, o, 'member'));
    const noKey = await cli(['--org', o.id]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('CADRE_API_KEY');
    const refused = await cli(['--org', o.id], { CADRE_API_KEY: 'cadre_nope' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('401');
    const member = await cli(['--org', o.id], { CADRE_API_KEY: memberKey.key });
    expect(member.code).toBe(1);
    expect(member.stderr).toContain('403 forbidden');
    const foreign = await cli(['--org', org.id], { CADRE_API_KEY: o.ownerKey });
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('404 not_found');
    expect((await cli(['--org', o.id, '--limit', '0'], { CADRE_API_KEY: o.ownerKey })).code).toBe(1);
  });
});
