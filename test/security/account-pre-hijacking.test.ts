import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from '../support/assertions.js';
import { createOrganization, type TestOrganization, uniqueSlug } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { login, PASSWORD, setPassword } from '../support/session.js';

// Account pre-hijacking (docs/admin-api.md "Accounts and proven emails", docs/organization-api.md "Members
// and invitations"): an account is reused for an email only once the email was proven — the link mailed to it
// was used, or the operator chose it — and whoever set a password on an account that never proved its email
// gains nothing granted to that email later. A real Cadre over loopback, a real SMTP server receiving the
// invitation emails.

const CONSOLE = 'http://console.example.test';
const SQUATTER_PASSWORD = 'the squatter chose this one';
const inbox: ParsedMail[] = [];
let smtp: SMTPServer;
let server: TestServer;
let attacker: TestOrganization;

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
    consoleUrl: CONSOLE,
    smtp: { url: `smtp://127.0.0.1:${port}`, from: 'Cadre <cadre@example.test>' },
  });
  attacker = await createOrganization(server, 'team');
});
afterAll(async () => {
  await server.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const victimEmail = () => `ceo-${uniqueSlug('x')}@victim.test`;

interface Invitation {
  token: string;
  url: string;
  email: string;
}

async function invite(organization: TestOrganization, email: string, role = 'admin'): Promise<Invitation> {
  const res = await server.request<{ data: Invitation }>(
    'POST',
    `/api/v1/organizations/${organization.slug}/invitations`,
    { key: organization.ownerKey, body: { email, role } },
  );
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

/** The token of the link the invitee received by mail (not the inviter's copy). */
async function mailedToken(email: string, organization: TestOrganization): Promise<string> {
  await expect.poll(() => inbox.some((mail) => mailedTo(mail, email, organization))).toBe(true);
  const mail = inbox.find((message) => mailedTo(message, email, organization))!;
  const token = /\/invitations\/(inv_[0-9A-Za-z]{43})/.exec(mail.text ?? '')?.[1];
  expect(token, mail.text).toBeDefined();
  return token!;
}
const mailedTo = (mail: ParsedMail, email: string, organization: TestOrganization) =>
  (mail.to as { text: string }).text === email && (mail.text ?? '').includes(`(${organization.slug})`);

const accept = (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  server.request<{ data: { user: { id: string } } }>('POST', `/auth/invitations/${token}/accept`, {
    body,
    headers,
  });

const signIn = (email: string, password: string, organization?: string) =>
  server.request('POST', '/auth/login', {
    body: { email, password, ...(organization ? { organization } : {}) },
  });

/** The attacker's half: invite the victim's email to their own organization and accept the copied link. */
async function squat(email: string) {
  const invitation = await invite(attacker, email, 'member');
  const accepted = await accept(invitation.token, { name: 'Not the CEO', password: SQUATTER_PASSWORD });
  expect(accepted.status, accepted.text).toBe(200);
  const session = await login(server, email, SQUATTER_PASSWORD, attacker.slug);
  return { userId: accepted.body.data.user.id, session };
}

const createOrganizationFor = (email: string, extra: Record<string, unknown> = {}) => {
  const slug = uniqueSlug('victim');
  return server.admin<{ data: { owner: { id: string }; organization: { slug: string } } }>(
    'POST',
    '/admin/v1/organizations',
    { slug, name: 'Victim Inc', accountType: 'team', owner: { email, ...extra } },
  );
};

describe('an account squatted through a copied invitation link', () => {
  it('is not reused by the admin API when it creates an organization for that email', async () => {
    const email = victimEmail();
    const { userId, session } = await squat(email);

    const refused = await createOrganizationFor(email);
    expectApiError(refused, 409, 'conflict');
    expect(refused.text).toContain('unverifiedAccount');
    expect(refused.body).toMatchObject({
      error: { details: [{ path: 'owner.unverifiedAccount', message: expect.any(String) }] },
    });

    // The operator's explicit choice: the account is reset and then belongs to whom the operator gives it.
    const created = await createOrganizationFor(email, { unverifiedAccount: 'reset' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.owner.id).toBe(userId);
    const victim = created.body.data.organization.slug;
    expectApiError(await signIn(email, SQUATTER_PASSWORD, victim), 401, 'unauthorized');
    expectApiError(await signIn(email, SQUATTER_PASSWORD, attacker.slug), 401, 'unauthorized');
    const old = await server.request('GET', '/auth/session', { headers: { cookie: session.cookie } });
    expect(old.status).toBe(401);

    await setPassword(server, userId);
    expect((await signIn(email, PASSWORD, victim)).status).toBe(200);
    // Proven now (the operator chose it): reused from here on without the option.
    expect((await createOrganizationFor(email)).status).toBe(201);
  });

  it('is not reused by the admin API when it adds a member with that email', async () => {
    const victim = await createOrganization(server, 'team');
    const email = victimEmail();
    await squat(email);
    const path = `/admin/v1/organizations/${victim.slug}/members`;
    const refused = await server.admin('POST', path, { email, role: 'admin' });
    expectApiError(refused, 409, 'conflict');
    expect(refused.body).toMatchObject({ error: { details: [{ path: 'unverifiedAccount' }] } });

    const added = await server.admin('POST', path, { email, role: 'admin', unverifiedAccount: 'reset' });
    expect(added.status, added.text).toBe(201);
    expectApiError(await signIn(email, SQUATTER_PASSWORD, victim.slug), 401, 'unauthorized');
    const audit = await server.admin<{ data: { events: Array<{ action: string; targetType: string }> } }>(
      'GET',
      `/admin/v1/organizations/${victim.slug}/audit-events`,
    );
    expect(audit.body.data.events.map((event) => event.action)).toContain('user.credentials_reset');
  });

  it("joins no other organization through the squatter's password or session", async () => {
    const victim = await createOrganization(server, 'team');
    const email = victimEmail();
    const { session } = await squat(email);
    const invitation = await invite(victim, email);

    // The copied link with the squatter's password, or signed in as the squatted account: refused.
    const withPassword = await accept(invitation.token, { password: SQUATTER_PASSWORD });
    expectApiError(withPassword, 409, 'conflict');
    expect(withPassword.text).toMatch(/mailed/);
    const signedIn = await accept(
      invitation.token,
      {},
      { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
    );
    expectApiError(signedIn, 409, 'conflict');
    expectApiError(await signIn(email, SQUATTER_PASSWORD, victim.slug), 401, 'unauthorized');
  });

  it('is taken over by whoever opens the link mailed to the address', async () => {
    const victim = await createOrganization(server, 'team');
    const email = victimEmail();
    const { session } = await squat(email);
    await invite(victim, email);
    const token = await mailedToken(email, victim);

    const preview = await server.request<{ data: { account: string } }>('GET', `/auth/invitations/${token}`);
    expect(preview.body.data.account).toBe('new');
    const accepted = await accept(token, { name: 'The CEO', password: PASSWORD });
    expect(accepted.status, accepted.text).toBe(200);

    expect((await signIn(email, PASSWORD, victim.slug)).status).toBe(200);
    expectApiError(await signIn(email, SQUATTER_PASSWORD, attacker.slug), 401, 'unauthorized');
    const old = await server.request('GET', '/auth/session', { headers: { cookie: session.cookie } });
    expect(old.status).toBe(401);
    // Proven: the admin API reuses it without the option.
    expect((await createOrganizationFor(email)).status).toBe(201);
  });
});

describe('an account made from the link mailed to its address', () => {
  it('has proven its email: the admin API reuses it, its password signs in there', async () => {
    const email = victimEmail();
    const invitation = await invite(attacker, email, 'member');
    const token = await mailedToken(email, attacker);
    expect(token).not.toBe(invitation.token);
    const accepted = await accept(token, { name: 'Real Person', password: PASSWORD });
    expect(accepted.status, accepted.text).toBe(200);

    const created = await createOrganizationFor(email);
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.owner.id).toBe(accepted.body.data.user.id);
    expect((await signIn(email, PASSWORD, created.body.data.organization.slug)).status).toBe(200);
  });
});

describe('two first accepts for one new email at once', () => {
  it('one joins, the other is 409, never 500', async () => {
    const second = await createOrganization(server, 'team');
    for (let round = 0; round < 5; round++) {
      const email = victimEmail();
      const [a, b] = [await invite(attacker, email, 'member'), await invite(second, email, 'member')];
      const answers = await Promise.all(
        [a, b].map((invitation) => accept(invitation.token, { name: 'Twice', password: PASSWORD })),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses, answers.map((res) => res.text).join('\n')).toEqual([200, 409]);
      expectApiError(answers.find((res) => res.status === 409)!, 409, 'conflict');
    }
  });
});
