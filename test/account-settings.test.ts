import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../src/modules/audit/audit.tables.js';
import { expectApiError } from './support/assertions.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { type ConsoleLogin, login, PASSWORD, setPassword } from './support/session.js';

let server: TestServer;
let org: TestOrganization;
const ownerEmail = () => `owner@${org.slug}.test`;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'team');
});
afterAll(() => server.close());

const asSession = (session: ConsoleLogin, method: string, path: string, body?: unknown) =>
  server.request(method, path, {
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
    ...(body === undefined ? {} : { body }),
  });

describe('PATCH /api/v1/me', () => {
  it('every user changes their own name, by key or by console session', async () => {
    const memberId = await addMember(server, org, 'member');
    const memberKey = await createKey(server, org, memberId, {
      type: 'organization',
      permissions: ['billing:read'],
    });
    const res = await server.request<{ data: { user: { id: string; name: string } } }>(
      'PATCH',
      '/api/v1/me',
      {
        key: memberKey.key,
        body: { name: '  Ada Lovelace ' },
      },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.user).toMatchObject({ id: memberId, name: 'Ada Lovelace' });
    expect((await server.context.tenancy.getUser(memberId)).name).toBe('Ada Lovelace');
    // Audited with what changed, in the organization of the credential; the same name again records nothing.
    const renamed = () =>
      server.context.database.db.select().from(auditEvents).where(eq(auditEvents.action, 'user.renamed'));
    expect(await renamed()).toMatchObject([
      {
        organizationId: org.id,
        actorUserId: memberId,
        targetType: 'user',
        targetId: memberId,
        metadata: { from: null, to: 'Ada Lovelace' },
      },
    ]);
    const again = await server.request('PATCH', '/api/v1/me', {
      key: memberKey.key,
      body: { name: 'Ada Lovelace' },
    });
    expect(again.status, again.text).toBe(200);
    expect(await renamed()).toHaveLength(1);
    expectApiError(
      await server.request('PATCH', '/api/v1/me', { key: memberKey.key, body: { name: '' } }),
      422,
      'validation_failed',
    );
    expectApiError(
      await server.request('PATCH', '/api/v1/me', { key: memberKey.key, body: { email: 'x@y.test' } }),
      422,
      'validation_failed',
    );
  });
});

describe('POST /api/v1/me/password', () => {
  it('refuses a wrong current password; the right one changes it and ends the other sessions only', async () => {
    await setPassword(server, org.ownerId);
    const here = await login(server, ownerEmail());
    const elsewhere = await login(server, ownerEmail());

    const wrong = await asSession(here, 'POST', '/api/v1/me/password', {
      currentPassword: 'not the password',
      newPassword: 'a brand new long passphrase',
    });
    expectApiError(wrong, 422, 'validation_failed');
    expect(wrong.text).toContain('currentPassword');
    // Nothing changed: both sessions live, the old password still signs in.
    expect((await asSession(elsewhere, 'GET', '/api/v1/me')).status).toBe(200);
    await login(server, ownerEmail());
    // Too short a new password is refused before anything is checked.
    expectApiError(
      await asSession(here, 'POST', '/api/v1/me/password', {
        currentPassword: PASSWORD,
        newPassword: 'short',
      }),
      422,
      'validation_failed',
    );

    const changed = await asSession(here, 'POST', '/api/v1/me/password', {
      currentPassword: PASSWORD,
      newPassword: 'a brand new long passphrase',
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.text).not.toContain('brand new');
    expect((await asSession(here, 'GET', '/api/v1/me')).status).toBe(200);
    expectApiError(await asSession(elsewhere, 'GET', '/api/v1/me'), 401, 'unauthorized');
    await expect(login(server, ownerEmail())).rejects.toThrow(/401/);
    await login(server, ownerEmail(), 'a brand new long passphrase');
    // The owner's API key is not affected.
    expect((await server.request('GET', '/api/v1/me', { key: org.ownerKey })).status).toBe(200);

    const events = await server.context.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'user.password_changed'));
    expect(events.map((e) => e.targetId)).toEqual([org.ownerId]);
  });

  it('through an API key the current password is still required, and every console session ends', async () => {
    const userId = await addMember(server, org, 'member');
    const key = await createKey(server, org, userId);
    await setPassword(server, userId);
    const email = (await server.context.tenancy.getUser(userId)).email;
    const session = await login(server, email);
    expectApiError(
      await server.request('POST', '/api/v1/me/password', {
        key: key.key,
        body: { currentPassword: 'guess guess guess', newPassword: 'another long passphrase' },
      }),
      422,
      'validation_failed',
    );
    const res = await server.request('POST', '/api/v1/me/password', {
      key: key.key,
      body: { currentPassword: PASSWORD, newPassword: 'another long passphrase' },
    });
    expect(res.status, res.text).toBe(200);
    expectApiError(await asSession(session, 'GET', '/api/v1/me'), 401, 'unauthorized');
    await login(server, email, 'another long passphrase');
  });

  it('a user without a password cannot set one this way (the operator sets the first)', async () => {
    const userId = await addMember(server, org, 'member');
    const key = await createKey(server, org, userId);
    expectApiError(
      await server.request('POST', '/api/v1/me/password', {
        key: key.key,
        body: { currentPassword: 'anything at all', newPassword: 'another long passphrase' },
      }),
      422,
      'validation_failed',
    );
  });
});

describe('PATCH /api/v1/organizations/{org}', () => {
  it('the owner renames the organization (audited); an admin or a member is refused; another organization is 404', async () => {
    const res = await server.request<{ data: { id: string; slug: string; name: string } }>(
      'PATCH',
      `/api/v1/organizations/${org.slug}`,
      { key: org.ownerKey, body: { name: 'Acme Robotics' } },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: org.id, slug: org.slug, name: 'Acme Robotics' });
    const me = await server.request<{ data: { organization: { name: string } } }>('GET', '/api/v1/me', {
      key: org.ownerKey,
    });
    expect(me.body.data.organization.name).toBe('Acme Robotics');
    const [event] = await server.context.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'organization.renamed'));
    expect(event).toMatchObject({ targetId: org.id, metadata: { from: org.slug, to: 'Acme Robotics' } });

    for (const role of ['admin', 'member'] as const) {
      const userId = await addMember(server, org, role);
      const key = await createKey(server, org, userId);
      expectApiError(
        await server.request('PATCH', `/api/v1/organizations/${org.id}`, {
          key: key.key,
          body: { name: 'Mine' },
        }),
        403,
        'forbidden',
      );
    }
    const other = await createOrganization(server, 'team');
    expectApiError(
      await server.request('PATCH', `/api/v1/organizations/${other.slug}`, {
        key: org.ownerKey,
        body: { name: 'Taken over' },
      }),
      404,
      'not_found',
    );
    expect((await server.context.tenancy.getOrganization(other.id)).name).toBe(other.slug);
  });
});
