import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../src/http/logger.js';
import { createManualClock } from '../src/lib/clock.js';
import { expectApiError } from './support/assertions.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { login, PASSWORD, setPassword } from './support/session.js';

// The whole of docs/organization-api.md "Members and invitations" on real parts: a real SMTP server
// (smtp-server) receives the invitation emails Cadre sends with nodemailer, a real Cadre answers over loopback
// on its own database, and time moves only by the injected clock.

const CONSOLE = 'http://console.example.test';
const DAY = 86_400_000;

interface Invitation {
  id: string;
  email: string;
  role: string;
  state: string;
  token: string;
  url: string;
  emailSent: boolean;
  expiresAt: string;
}

const clock = createManualClock(new Date());
const inbox: ParsedMail[] = [];
let smtp: SMTPServer;
let server: TestServer;
let org: TestOrganization;
let serial = 0;
const email = (who: string) => `${who}-${serial++}@people.test`;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          inbox.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  server = await startServer({
    clock,
    consoleUrl: CONSOLE,
    smtp: { url: `smtp://127.0.0.1:${port}`, from: 'Cadre <cadre@example.test>' },
  });
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
});
afterAll(async () => {
  await server.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

async function invite(key: string, body: Record<string, unknown>, organization = org.slug) {
  return server.request<{ data: Invitation }>('POST', `/api/v1/organizations/${organization}/invitations`, {
    key,
    body,
  });
}

async function invited(body: Record<string, unknown>): Promise<Invitation> {
  const res = await invite(org.ownerKey, body);
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

const accept = (token: string, body: Record<string, unknown>) =>
  server.request<{ data: { user: { id: string }; membership: { role: string } } }>(
    'POST',
    `/auth/invitations/${token}/accept`,
    { body },
  );
const preview = (token: string) =>
  server.request<{ data: { state: string; message: string; account: string; email: string; role: string } }>(
    'GET',
    `/auth/invitations/${token}`,
  );

describe('owner invites, the invitee joins, the owner changes the role and removes them', () => {
  it('walks the whole flow', async () => {
    const address = email('new');
    const invitation = await invited({ email: address.toUpperCase(), role: 'member' });
    expect(invitation).toMatchObject({
      email: address,
      role: 'member',
      state: 'pending',
      emailSent: true,
      emailStatus: 'sent',
    });
    expect(invitation.token).toMatch(/^inv_[0-9A-Za-z]{43}$/);
    expect(invitation.url).toBe(`${CONSOLE}/invitations/${invitation.token}`);
    // Seven days by default.
    expect(Date.parse(invitation.expiresAt) - clock.now().getTime()).toBe(7 * DAY);

    // The email arrived on the SMTP server, to the invitee, with a link of its own: the mailed link's token is
    // never the inviter's copy (using it proves the address, docs/admin-api.md "Accounts and proven emails").
    const mail = inbox.find((message) => (message.to as { text: string }).text === address);
    expect(mail, 'the invitation email').toBeDefined();
    const mailedUrl = new RegExp(`${CONSOLE}/invitations/inv_[0-9A-Za-z]{43}`).exec(mail!.text ?? '')?.[0];
    expect(mailedUrl, mail!.text).toBeDefined();
    expect(mail!.text).not.toContain(invitation.token);
    const mailedPreview = await preview(mailedUrl!.slice(`${CONSOLE}/invitations/`.length));
    expect(mailedPreview.body.data).toMatchObject({ email: address, state: 'pending' });
    expect(mail!.subject).toMatch(/^Join /);
    expect((mail!.to as { text: string }).text).toBe(address);
    expect(mail!.from?.text).toContain('cadre@example.test');

    // Listed while pending, never with its token.
    const list = await server.request<{ data: Invitation[] }>(
      'GET',
      `/api/v1/organizations/${org.slug}/invitations`,
      { key: org.ownerKey },
    );
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((i) => i.id)).toContain(invitation.id);
    expect(list.text).not.toContain(invitation.token);
    // The token is kept only as its digest.
    const stored = await server.context.database.db.execute(
      `SELECT token_digest FROM invitations WHERE id = '${invitation.id}'`,
    );
    expect(JSON.stringify(stored)).not.toContain(invitation.token);

    // The link says what it is for.
    const read = await preview(invitation.token);
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toMatchObject({
      email: address,
      role: 'member',
      state: 'pending',
      account: 'new',
    });

    // A new account needs a name and a long enough password.
    const refused = await accept(invitation.token, { password: 'short' });
    expectApiError(refused, 422, 'validation_failed');
    expect(JSON.stringify(refused.body)).toContain('"path":"name"');
    const accepted = await accept(invitation.token, { name: 'Nora New', password: PASSWORD });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.data.membership.role).toBe('member');
    const userId = accepted.body.data.user.id;

    // Used once: the link now says so, in words, with its own code.
    const again = await accept(invitation.token, { name: 'Nora New', password: PASSWORD });
    expectApiError(again, 410, 'invitation_used');
    expect((await preview(invitation.token)).body.data.state).toBe('accepted');

    // The invitee signs in and works as a member.
    const session = await login(server, address, PASSWORD, org.slug);
    const key = await server.request<{ data: { id: string; key: string } }>('POST', '/api/v1/api-keys', {
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
      body: {
        name: 'mine',
        grants: { type: 'organization', permissions: ['members:read', 'api-keys:read'] },
      },
    });
    expect(key.status, key.text).toBe(200);
    const memberKey = key.body.data.key;
    const me = await server.request<{ data: { role: string } }>('GET', '/api/v1/me', { key: memberKey });
    expect(me.body.data.role).toBe('member');

    // A member cannot invite, change roles or remove anyone: their role lacks members:manage.
    const byMember = await server.request('POST', `/api/v1/organizations/${org.slug}/invitations`, {
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
      body: { email: email('x'), role: 'member' },
    });
    expectApiError(byMember, 403, 'forbidden');
    expect(byMember.text).toContain('members:manage');
    expectApiError(
      await server.request('DELETE', `/api/v1/organizations/${org.slug}/members/${org.ownerId}`, {
        key: memberKey,
      }),
      403,
      'forbidden',
    );

    // The owner makes them an admin: their key follows at once.
    const role = await server.request<{ data: { role: string } }>(
      'PUT',
      `/api/v1/organizations/${org.slug}/members/${userId}`,
      { key: org.ownerKey, body: { role: 'admin' } },
    );
    expect(role.status, role.text).toBe(200);
    expect(role.body.data.role).toBe('admin');
    expect(
      (await server.request<{ data: { role: string } }>('GET', '/api/v1/me', { key: memberKey })).body.data
        .role,
    ).toBe('admin');

    // The owner removes them: their key gets 401, their session ends.
    const removed = await server.request<{ data: { revokedApiKeyIds: string[]; endedSessions: number } }>(
      'DELETE',
      `/api/v1/organizations/${org.slug}/members/${userId}`,
      { key: org.ownerKey },
    );
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.data).toMatchObject({ userId, role: 'admin', endedSessions: 1 });
    expect(removed.body.data.revokedApiKeyIds).toEqual([key.body.data.id]);
    expectApiError(await server.request('GET', '/api/v1/me', { key: memberKey }), 401, 'unauthorized');
    expectApiError(
      await server.request('GET', '/auth/session', { headers: { cookie: session.cookie } }),
      401,
      'unauthorized',
    );
    const members = await server.request<{ data: Array<{ userId: string }> }>(
      'GET',
      `/api/v1/organizations/${org.slug}/members?limit=100`,
      { key: org.ownerKey },
    );
    expect(members.body.data.map((m) => m.userId)).not.toContain(userId);
    // Removing again: there is no such member.
    expectApiError(
      await server.request('DELETE', `/api/v1/organizations/${org.slug}/members/${userId}`, {
        key: org.ownerKey,
      }),
      404,
      'not_found',
    );

    // Each step is in the audit trail.
    const audit = await server.request<{
      data: Array<{ action: string; target: { id: string }; metadata: Record<string, unknown> | null }>;
    }>('GET', `/api/v1/organizations/${org.slug}/audit-events?limit=100`, { key: org.ownerKey });
    const actions = audit.body.data.map((event) => `${event.action} ${event.target.id}`);
    expect(actions).toEqual(
      expect.arrayContaining([
        `invitation.created ${invitation.id}`,
        `membership.created ${userId}`,
        `membership.role_changed_to_admin ${userId}`,
        `membership.removed ${userId}`,
      ]),
    );
    const removal = audit.body.data.find((event) => event.action === 'membership.removed');
    expect(removal?.metadata).toEqual({
      role: 'admin',
      revokedApiKeyIds: [key.body.data.id],
      endedSessions: 1,
      revokedInvitationIds: [],
    });
  });
});

describe('accepting', () => {
  it('an existing user proves who they are with their password, then signs in to the organization', async () => {
    const elsewhere = await createOrganization(server, 'team');
    await setPassword(server, elsewhere.ownerId);
    const address = `owner@${elsewhere.slug}.test`;
    const invitation = await invited({ email: address, role: 'admin' });
    expect((await preview(invitation.token)).body.data.account).toBe('existing');
    const wrong = await accept(invitation.token, { password: 'not the password at all' });
    expectApiError(wrong, 422, 'validation_failed');
    expect((await preview(invitation.token)).body.data.state).toBe('pending');
    const accepted = await accept(invitation.token, { password: PASSWORD });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.data.user.id).toBe(elsewhere.ownerId);
    expect(accepted.body.data.membership.role).toBe('admin');
    const session = await login(server, address, PASSWORD, org.slug);
    expect(session.res.body.data.organization.slug).toBe(org.slug);
  });

  it('ten wrong passwords for an existing account: the link refuses more guesses (429), even the right one', async () => {
    const elsewhere = await createOrganization(server, 'team');
    await setPassword(server, elsewhere.ownerId);
    const invitation = await invited({ email: `owner@${elsewhere.slug}.test`, role: 'member' });
    for (let guess = 0; guess < 10; guess++) {
      expectApiError(
        await accept(invitation.token, { password: `wrong guess ${guess}` }),
        422,
        'validation_failed',
      );
    }
    const throttled = await accept(invitation.token, { password: PASSWORD });
    expectApiError(throttled, 429, 'rate_limited');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await preview(invitation.token)).body.data.state).toBe('pending');
  });

  it('parallel guesses count too, and a fresh invitation to the same account brings no fresh budget', async () => {
    const elsewhere = await createOrganization(server, 'team');
    await setPassword(server, elsewhere.ownerId);
    const address = `owner@${elsewhere.slug}.test`;
    const first = await invited({ email: address, role: 'member' });
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, guess) => accept(first.token, { password: `parallel guess ${guess}` })),
    );
    expect(answers.filter((res) => res.status === 429).length).toBe(4);
    const path = `/api/v1/organizations/${org.slug}/invitations/${first.id}`;
    expect((await server.request('DELETE', path, { key: org.ownerKey })).status).toBe(200);
    const second = await invited({ email: address, role: 'member' });
    expectApiError(await accept(second.token, { password: PASSWORD }), 429, 'rate_limited');
  });

  it("never sets a password on an account the operator made without one: the link's holder cannot take it over", async () => {
    // Another organization's owner, created by the operator with no console password.
    const victim = await createOrganization(server, 'team');
    const address = `owner@${victim.slug}.test`;
    const invitation = await invited({ email: address, role: 'member' });
    expect((await preview(invitation.token)).body.data.account).toBe('existing');
    const taken = await accept(invitation.token, { name: 'Mallory', password: 'chosen by the inviter' });
    expectApiError(taken, 409, 'conflict');
    const signIn = await server.request('POST', '/auth/login', {
      body: { email: address, password: 'chosen by the inviter' },
    });
    expect(signIn.status).toBe(401);
    expect((await preview(invitation.token)).body.data.state).toBe('pending');
  });

  it('an existing user signed in to the console accepts without a password (with the CSRF token)', async () => {
    const elsewhere = await createOrganization(server, 'team');
    await setPassword(server, elsewhere.ownerId);
    const address = `owner@${elsewhere.slug}.test`;
    const invitation = await invited({ email: address, role: 'member' });
    const path = `/auth/invitations/${invitation.token}/accept`;
    // Someone else's session is no proof: the password is still asked for.
    const stranger = await login(server, `owner@${org.slug}.test`);
    expectApiError(
      await server.request('POST', path, {
        headers: { cookie: stranger.cookie, 'x-csrf-token': stranger.csrfToken },
        body: {},
      }),
      422,
      'validation_failed',
    );
    const session = await login(server, address);
    expectApiError(
      await server.request('POST', path, { headers: { cookie: session.cookie }, body: {} }),
      403,
      'csrf_token_invalid',
    );
    const accepted = await server.request<{ data: { user: { id: string } } }>('POST', path, {
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
      body: {},
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.data.user.id).toBe(elsewhere.ownerId);
  });

  it('a revoked link says so; revoking is idempotent and the list no longer shows it', async () => {
    const invitation = await invited({ email: email('revoked'), role: 'member' });
    const path = `/api/v1/organizations/${org.slug}/invitations/${invitation.id}`;
    const revoked = await server.request<{ data: Invitation }>('DELETE', path, { key: org.ownerKey });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.data.state).toBe('revoked');
    const twice = await server.request<{ data: Invitation }>('DELETE', path, { key: org.ownerKey });
    expect(twice.body.data).toEqual(revoked.body.data);
    const refused = await accept(invitation.token, { name: 'Rita', password: PASSWORD });
    expectApiError(refused, 410, 'invitation_revoked');
    expect((refused.body as unknown as { error: { message: string } }).error.message).toMatch(/revoked/);
    expect((await preview(invitation.token)).body.data).toMatchObject({
      state: 'revoked',
      message: expect.stringMatching(/revoked/),
    });
    const list = await server.request<{ data: Invitation[] }>(
      'GET',
      `/api/v1/organizations/${org.slug}/invitations`,
      { key: org.ownerKey },
    );
    expect(list.body.data.map((i) => i.id)).not.toContain(invitation.id);
  });

  it('the inviter copies the link again: a fresh copy replaces theirs, the mailed link keeps working', async () => {
    const invitation = await invited({ email: email('again'), role: 'member' });
    const linkPath = (id: string, organization = org.slug) =>
      `/api/v1/organizations/${organization}/invitations/${id}/link`;
    const again = await server.request<{ data: Invitation }>('POST', linkPath(invitation.id), {
      key: org.ownerKey,
    });
    expect(again.status, again.text).toBe(200);
    const copy = again.body.data;
    expect(copy).toMatchObject({ id: invitation.id, state: 'pending', expiresAt: invitation.expiresAt });
    expect(copy.url).toBe(`${CONSOLE}/invitations/${copy.token}`);
    expect(copy.token).not.toBe(invitation.token);
    // The old copy stops working (one inviter's copy at a time); the new one opens the same invitation.
    expectApiError(await preview(invitation.token), 404, 'not_found');
    expect((await preview(copy.token)).body.data).toMatchObject({
      state: 'pending',
      email: invitation.email,
    });
    // The mailed link is the invitee's own and untouched: still working, and never the inviter's copy.
    await expect
      .poll(() => inbox.some((message) => (message.to as { text: string }).text === invitation.email))
      .toBe(true);
    const mail = inbox.find((message) => (message.to as { text: string }).text === invitation.email)!;
    const mailed = new RegExp(`${CONSOLE}/invitations/(inv_[0-9A-Za-z]{43})`).exec(mail.text ?? '')![1]!;
    expect(mailed).not.toBe(copy.token);
    expect((await preview(mailed)).body.data).toMatchObject({ state: 'pending', email: invitation.email });
    // Another organization sees nothing.
    const other = await createOrganization(server, 'team');
    expectApiError(
      await server.request('POST', linkPath(invitation.id, other.slug), { key: other.ownerKey }),
      404,
      'not_found',
    );
    // Once accepted (or revoked, or expired) there is nothing to copy.
    const joined = await accept(copy.token, { name: 'Again', password: PASSWORD });
    expect(joined.status, joined.text).toBe(200);
    expectApiError(
      await server.request('POST', linkPath(invitation.id), { key: org.ownerKey }),
      410,
      'invitation_used',
    );
    const revoked = await invited({ email: email('gone'), role: 'member' });
    await server.request('DELETE', `/api/v1/organizations/${org.slug}/invitations/${revoked.id}`, {
      key: org.ownerKey,
    });
    expectApiError(
      await server.request('POST', linkPath(revoked.id), { key: org.ownerKey }),
      410,
      'invitation_revoked',
    );
  });

  it('an unknown or malformed token is 404; another organization cannot revoke the invitation', async () => {
    expectApiError(await preview(`inv_${'a'.repeat(43)}`), 404, 'not_found');
    expectApiError(await accept('nonsense', { password: PASSWORD }), 404, 'not_found');
    const invitation = await invited({ email: email('mine'), role: 'member' });
    const other = await createOrganization(server, 'team');
    expectApiError(
      await server.request('DELETE', `/api/v1/organizations/${other.slug}/invitations/${invitation.id}`, {
        key: other.ownerKey,
      }),
      404,
      'not_found',
    );
    expectApiError(
      await server.request('GET', `/api/v1/organizations/${org.slug}/invitations`, { key: other.ownerKey }),
      404,
      'not_found',
    );
  });

  it('invitations to one email sent at once: exactly one is created, the others are 409', async () => {
    const address = email('race');
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => invite(org.ownerKey, { email: address, role: 'member' })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it('one pending invitation per email, and never for a member', async () => {
    const address = email('twice');
    await invited({ email: address, role: 'member' });
    expectApiError(await invite(org.ownerKey, { email: address, role: 'admin' }), 409, 'conflict');
    expectApiError(
      await invite(org.ownerKey, { email: `owner@${org.slug}.test`, role: 'member' }),
      409,
      'conflict',
    );
    expectApiError(
      await invite(org.ownerKey, { email: email('o'), role: 'owner' }),
      422,
      'validation_failed',
    );
  });
});

describe('removing a member ends what they started', () => {
  it('revokes the invitations they sent, audited; the organization keeps the rest', async () => {
    const adminId = await addMember(server, org, 'admin');
    const adminKey = (await createKey(server, org, adminId)).key;
    const theirs = await invite(adminKey, { email: email('via-admin'), role: 'admin' });
    expect(theirs.status, theirs.text).toBe(201);
    const ownersOwn = await invited({ email: email('via-owner'), role: 'member' });

    const removed = await server.request<{ data: { revokedInvitationIds: string[] } }>(
      'DELETE',
      `/api/v1/organizations/${org.slug}/members/${adminId}`,
      { key: org.ownerKey },
    );
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.data.revokedInvitationIds).toEqual([theirs.body.data.id]);

    // The removed admin's invitation no longer makes an admin; the owner's own stands.
    expectApiError(
      await accept(theirs.body.data.token, { name: 'Late', password: PASSWORD }),
      410,
      'invitation_revoked',
    );
    expect((await preview(ownersOwn.token)).body.data.state).toBe('pending');
    const audit = await server.request<{
      data: Array<{ action: string; target: { id: string }; metadata: Record<string, unknown> | null }>;
    }>('GET', `/api/v1/organizations/${org.slug}/audit-events?limit=20`, { key: org.ownerKey });
    const revoked = audit.body.data.find(
      (event) => event.action === 'invitation.revoked' && event.target.id === theirs.body.data.id,
    );
    expect(revoked?.metadata).toMatchObject({ reason: 'inviter_removed' });
    const removal = audit.body.data.find(
      (event) => event.action === 'membership.removed' && event.target.id === adminId,
    );
    expect(removal?.metadata).toMatchObject({ revokedInvitationIds: [theirs.body.data.id] });
  });
});

describe('role ceilings', () => {
  it('an admin never touches the owner nor makes an owner; the owner is never removed or demoted', async () => {
    const adminId = await addMember(server, org, 'admin');
    const adminKey = (await createKey(server, org, adminId)).key;
    const ownerPath = `/api/v1/organizations/${org.slug}/members/${org.ownerId}`;
    expectApiError(
      await server.request('PUT', ownerPath, { key: adminKey, body: { role: 'member' } }),
      403,
      'forbidden',
    );
    expectApiError(await server.request('DELETE', ownerPath, { key: adminKey }), 403, 'forbidden');
    const memberId = await addMember(server, org, 'member');
    expectApiError(
      await server.request('PUT', `/api/v1/organizations/${org.slug}/members/${memberId}`, {
        key: adminKey,
        body: { role: 'owner' },
      }),
      422,
      'validation_failed',
    );
    expectApiError(
      await server.request('POST', `/api/v1/organizations/${org.slug}/ownership-transfer`, {
        key: adminKey,
        body: { userId: adminId },
      }),
      403,
      'forbidden',
    );
    // Within the ceiling: an admin manages members and other admins.
    const promoted = await server.request('PUT', `/api/v1/organizations/${org.slug}/members/${memberId}`, {
      key: adminKey,
      body: { role: 'admin' },
    });
    expect(promoted.status, promoted.text).toBe(200);
    const invitation = await invite(adminKey, { email: email('by-admin'), role: 'admin' });
    expect(invitation.status, invitation.text).toBe(201);
    // The owner itself: transfer first.
    expectApiError(
      await server.request('PUT', ownerPath, { key: org.ownerKey, body: { role: 'admin' } }),
      409,
      'conflict',
    );
    expectApiError(await server.request('DELETE', ownerPath, { key: org.ownerKey }), 409, 'conflict');
  });

  it('the owner transfers the ownership and becomes an admin', async () => {
    const team = await createOrganization(server, 'team');
    const nextId = await addMember(server, team, 'admin');
    const res = await server.request<{
      data: { owner: { userId: string; role: string }; previousOwner: { role: string } };
    }>('POST', `/api/v1/organizations/${team.slug}/ownership-transfer`, {
      key: team.ownerKey,
      body: { userId: nextId },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.owner).toMatchObject({ userId: nextId, role: 'owner' });
    expect(res.body.data.previousOwner.role).toBe('admin');
    const me = await server.request<{ data: { role: string } }>('GET', '/api/v1/me', { key: team.ownerKey });
    expect(me.body.data.role).toBe('admin');
    expectApiError(
      await server.request('POST', `/api/v1/organizations/${team.slug}/ownership-transfer`, {
        key: team.ownerKey,
        body: { userId: team.ownerId },
      }),
      403,
      'forbidden',
    );
  });
});

describe('invitation links in logs', () => {
  it('are redacted like the other capability tokens, wherever they appear', () => {
    const token = `inv_${'Ab1'.repeat(14)}x`;
    expect(redactUrl(`/auth/invitations/${token}`)).toBe('/auth/invitations/inv_[redacted]');
    expect(redactUrl(`/auth/invitations/${token}/accept`)).toBe('/auth/invitations/inv_[redacted]/accept');
    expect(redactUrl(`/x?next=%2Finvitations%2F${token.toUpperCase()}`)).toBe('/x?next=inv_[redacted]');
    expect(redactUrl('/invitations/other')).toBe('/invitations/other');
  });
});

describe('expiry', () => {
  it('an expired link says so and is no longer listed', async () => {
    const invitation = await invited({ email: email('late'), role: 'member', expiresInDays: 1 });
    clock.advance(DAY + 1);
    const refused = await accept(invitation.token, { name: 'Late', password: PASSWORD });
    expectApiError(refused, 410, 'invitation_expired');
    expect((refused.body as unknown as { error: { message: string } }).error.message).toMatch(/expired/);
    expect((await preview(invitation.token)).body.data.state).toBe('expired');
    const list = await server.request<{ data: Invitation[] }>(
      'GET',
      `/api/v1/organizations/${org.slug}/invitations`,
      { key: org.ownerKey },
    );
    expect(list.body.data.map((i) => i.id)).not.toContain(invitation.id);
    // A new invitation to the same email can be sent once the old one has expired.
    await invited({ email: invitation.email, role: 'member' });
  });
});
