import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/assertions.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { login, PASSWORD, setPassword } from './support/session.js';

let server: TestServer;
let org: TestOrganization;
const ownerEmail = () => `owner@${org.slug}.test`;

beforeAll(async () => {
  server = await startServer({
    loginLimits: { perAccount: 3, perAccountAllAddresses: 6, perIp: 1000, windowMs: 60_000 },
    // Tests stand for clients at several addresses with X-Forwarded-For.
    trustProxy: true,
  });
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
});
afterAll(() => server.close());

describe('POST /auth/login', () => {
  it('signs in, sets an HttpOnly SameSite=Lax cookie and answers user, organization and csrfToken', async () => {
    const { res, cookie } = await login(server, ownerEmail());
    expect(res.body.data).toMatchObject({
      user: { id: org.ownerId, email: ownerEmail() },
      organization: { id: org.id, slug: org.slug, accountType: 'team' },
      csrfToken: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(res.body)).not.toContain('password');
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('cadre_session='))!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).not.toMatch(/Secure/i);
    expect(cookie).toMatch(/^cadre_session=cs_[0-9A-Za-z]{43}$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts the email in any case', async () => {
    await login(server, ownerEmail().toUpperCase());
  });

  it('answers 401 for a wrong password, an unknown email and a user without a password', async () => {
    const member = await addMember(server, org, 'member');
    for (const body of [
      { email: ownerEmail(), password: 'wrong password here' },
      { email: 'nobody@nowhere.test', password: PASSWORD },
      { email: (await server.context.tenancy.getUser(member)).email, password: PASSWORD },
    ]) {
      expectApiError(await server.request('POST', '/auth/login', { body }), 401, 'unauthorized');
    }
  });

  it('answers 422 for a malformed body', async () => {
    expectApiError(
      await server.request('POST', '/auth/login', { body: { email: ownerEmail() } }),
      422,
      'validation_failed',
    );
  });

  it('signs in to the organization named by id or slug; default is the oldest membership', async () => {
    const other = await createOrganization(server, 'personal');
    // The owner of `org` joins `other` as an admin (same email → same user).
    const joined = await server.admin<{ data: { user: { id: string } } }>(
      'POST',
      `/admin/v1/organizations/${other.id}/members`,
      { email: ownerEmail(), role: 'admin' },
    );
    expect(joined.body.data.user.id).toBe(org.ownerId);
    expect((await login(server, ownerEmail())).res.body.data.organization.id).toBe(org.id);
    expect((await login(server, ownerEmail(), PASSWORD, other.slug)).res.body.data.organization.id).toBe(
      other.id,
    );
    expect((await login(server, ownerEmail(), PASSWORD, other.id)).res.body.data.organization.id).toBe(
      other.id,
    );
    const stranger = await createOrganization(server, 'personal');
    const res = await server.request('POST', '/auth/login', {
      body: { email: ownerEmail(), password: PASSWORD, organization: stranger.slug },
    });
    expectApiError(res, 401, 'unauthorized');
  });

  it('lists every organization of the person and switches the session between them (CSRF-protected)', async () => {
    const person = await createOrganization(server, 'team');
    await setPassword(server, person.ownerId);
    const email = `owner@${person.slug}.test`;
    const second = await createOrganization(server, 'team');
    await server.admin('POST', `/admin/v1/organizations/${second.id}/members`, { email, role: 'member' });
    const session = await login(server, email);
    const listed = (session.res.body.data as unknown as { organizations: unknown }).organizations;
    expect(listed).toEqual([
      { id: person.id, slug: person.slug, name: person.slug, role: 'owner' },
      { id: second.id, slug: second.slug, name: second.slug, role: 'member' },
    ]);
    const switchTo = (organization: string, csrf: string | null = session.csrfToken) =>
      server.request<{ data: { organization: { id: string } } }>('POST', '/auth/session/organization', {
        headers: { cookie: session.cookie, ...(csrf ? { 'x-csrf-token': csrf } : {}) },
        body: { organization },
      });
    expectApiError(await switchTo(second.slug, null), 403, 'csrf_token_invalid');
    const stranger = await createOrganization(server, 'personal');
    expectApiError(await switchTo(stranger.slug), 404, 'not_found');
    expectApiError(await switchTo('nobody-here'), 404, 'not_found');

    const switched = await switchTo(second.slug);
    expect(switched.status).toBe(200);
    expect(switched.body.data.organization.id).toBe(second.id);
    // Every page then works in the chosen organization, with the role held there.
    const me = await server.request<{ data: { organization: { id: string }; role: string } }>(
      'GET',
      '/api/v1/me',
      { headers: { cookie: session.cookie } },
    );
    expect(me.body.data).toMatchObject({ organization: { id: second.id }, role: 'member' });
    const again = await server.request<{ data: { organization: { id: string } } }>('GET', '/auth/session', {
      headers: { cookie: session.cookie },
    });
    expect(again.body.data.organization.id).toBe(second.id);
    expect((await switchTo(person.id)).body.data.organization.id).toBe(person.id);
    // An API key has no session to move.
    const bearer = await server.request('POST', '/auth/session/organization', {
      key: person.ownerKey,
      body: { organization: second.slug },
    });
    expectApiError(bearer, 401, 'unauthorized');
  });

  it('marks the cookie Secure when Cadre is served over https', async () => {
    const secure = await startServer({
      publicUrl: 'https://cadre.example.com',
      database: server.db.database,
    });
    try {
      const res = await secure.request('POST', '/auth/login', {
        body: { email: ownerEmail(), password: PASSWORD },
      });
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie().find((c) => c.startsWith('cadre_session='))).toMatch(/; Secure/i);
    } finally {
      await secure.app.close();
    }
  });
});

describe('login rate limits', () => {
  it('refuses an account after repeated failures, even with the right password, with Retry-After', async () => {
    const victim = await createOrganization(server, 'personal');
    await setPassword(server, victim.ownerId);
    const email = `owner@${victim.slug}.test`;
    for (let i = 0; i < 3; i++) {
      const res = await server.request('POST', '/auth/login', {
        body: { email, password: `wrong-${i}-password` },
      });
      expectApiError(res, 401, 'unauthorized');
    }
    const blocked = await server.request('POST', '/auth/login', { body: { email, password: PASSWORD } });
    expectApiError(blocked, 429, 'rate_limited');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other accounts are unaffected.
    await login(server, ownerEmail());
  });

  it('failures from one address never lock the real user out from another; the attacker stays throttled', async () => {
    const victim = await createOrganization(server, 'personal');
    await setPassword(server, victim.ownerId);
    const email = `owner@${victim.slug}.test`;
    const from = (ip: string, password: string) =>
      server.request('POST', '/auth/login', {
        body: { email, password },
        headers: { 'x-forwarded-for': ip },
      });
    for (let i = 0; i < 3; i++)
      expectApiError(await from('203.0.113.66', `wrong-${i}-password`), 401, 'unauthorized');
    expectApiError(await from('203.0.113.66', PASSWORD), 429, 'rate_limited');
    // The owner, elsewhere, signs in.
    expect((await from('198.51.100.7', PASSWORD)).status).toBe(200);
    // A guess spread over many addresses (6 failures in all) slows down addresses the account never used…
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      expectApiError(await from(ip, 'wrong-password-again'), 401, 'unauthorized');
    }
    expectApiError(await from('203.0.113.4', PASSWORD), 429, 'rate_limited');
    // …but not the address the owner signed in from, whose success also resets the account-wide count.
    expect((await from('198.51.100.7', PASSWORD)).status).toBe(200);
    expect((await from('203.0.113.4', PASSWORD)).status).toBe(200);
    // The attacker's own address is still throttled for this account.
    expectApiError(await from('203.0.113.66', PASSWORD), 429, 'rate_limited');
  });

  it('refuses an IP after too many attempts', async () => {
    const limited = await startServer({
      database: server.db.database,
      loginLimits: { perAccount: 100, perAccountAllAddresses: 100, perIp: 2, windowMs: 60_000 },
    });
    try {
      await login(limited, ownerEmail());
      await login(limited, ownerEmail());
      const res = await limited.request('POST', '/auth/login', {
        body: { email: ownerEmail(), password: PASSWORD },
      });
      expectApiError(res, 429, 'rate_limited');
    } finally {
      await limited.app.close();
    }
  });
});

describe('GET /auth/session and POST /auth/logout', () => {
  it('answers the session, then ends it on logout (the old cookie no longer works)', async () => {
    const { cookie, csrfToken, res: loginRes } = await login(server, ownerEmail());
    const session = await server.request('GET', '/auth/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(session.body).toEqual(loginRes.body);

    expectApiError(
      await server.request('POST', '/auth/logout', { headers: { cookie } }),
      403,
      'csrf_token_invalid',
    );
    const out = await server.request('POST', '/auth/logout', {
      headers: { cookie, 'x-csrf-token': csrfToken },
    });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().find((c) => c.startsWith('cadre_session='))).toMatch(
      /Expires=Thu, 01 Jan 1970/,
    );
    expectApiError(
      await server.request('GET', '/auth/session', { headers: { cookie } }),
      401,
      'unauthorized',
    );
    const plans = await server.request('GET', '/api/v1/billing/plans', { headers: { cookie } });
    expectApiError(plans, 401, 'unauthorized');
  });

  it('logout without a session clears the cookie and answers 200, as /openapi.json says (its security is optional)', async () => {
    const out = await server.request('POST', '/auth/logout');
    expect(out.status, out.text).toBe(200);
    expect(out.headers.getSetCookie().find((c) => c.startsWith('cadre_session='))).toMatch(
      /Expires=Thu, 01 Jan 1970/,
    );
    const document = await server.request<{
      paths: Record<string, Record<string, { security?: Array<Record<string, string[]>> }>>;
    }>('GET', '/openapi.json');
    expect(document.body.paths['/auth/logout']?.post?.security).toEqual([{ consoleSession: [] }, {}]);
  });

  it('ends every session of a user when an operator sets a new password', async () => {
    const a = await login(server, ownerEmail());
    const b = await login(server, ownerEmail());
    await setPassword(server, org.ownerId);
    for (const { cookie } of [a, b]) {
      expectApiError(
        await server.request('GET', '/auth/session', { headers: { cookie } }),
        401,
        'unauthorized',
      );
    }
    const fresh = await login(server, ownerEmail());
    expect((await server.request('GET', '/auth/session', { headers: { cookie: fresh.cookie } })).status).toBe(
      200,
    );
  });

  it('answers 401 without a session, with an unknown cookie and for an API key', async () => {
    expectApiError(await server.request('GET', '/auth/session'), 401, 'unauthorized');
    const fake = { cookie: `cadre_session=cs_${'a'.repeat(43)}` };
    expectApiError(await server.request('GET', '/auth/session', { headers: fake }), 401, 'unauthorized');
    expectApiError(await server.request('GET', '/auth/session', { key: org.ownerKey }), 401, 'unauthorized');
  });

  it('expires sessions after their time to live', async () => {
    const short = await startServer({ database: server.db.database, sessionTtlMs: 1 });
    try {
      const { cookie } = await login(short, ownerEmail());
      await new Promise((resolve) => setTimeout(resolve, 5));
      expectApiError(
        await short.request('GET', '/auth/session', { headers: { cookie } }),
        401,
        'unauthorized',
      );
    } finally {
      await short.app.close();
    }
  });

  it('applies role changes to live sessions at once', async () => {
    const adminId = await addMember(server, org, 'admin');
    await setPassword(server, adminId);
    const admin = await login(server, (await server.context.tenancy.getUser(adminId)).email);
    const checkout = () =>
      server.request('POST', `/api/v1/organizations/${org.id}/billing/portal`, {
        headers: { cookie: admin.cookie, 'idempotency-key': `role-${Math.random()}` },
        body: { returnUrl: 'https://console.example.com/', csrfToken: admin.csrfToken },
      });
    expect((await checkout()).status).toBe(200);
    await server.context.tenancy.setRole(org.id, adminId, 'member', { kind: 'admin' });
    expectApiError(await checkout(), 403, 'forbidden');
  });

  it('lets a Bearer header win over the cookie (an invalid one is 401, never a fallback to the cookie)', async () => {
    const memberId = await addMember(server, org, 'member');
    const email = (await server.context.tenancy.getUser(memberId)).email;
    await setPassword(server, memberId);
    const { cookie } = await login(server, email);
    const read = await server.request('GET', '/api/v1/billing/plans', { headers: { cookie } });
    expect(read.status).toBe(200);
    const other = await createOrganization(server, 'personal');
    const key = await createKey(server, other, other.ownerId);
    const both = await server.request<{ data: { organization: { id: string } } }>(
      'GET',
      `/api/v1/organizations/${other.id}/billing/subscription`,
      { headers: { cookie }, key: key.key },
    );
    expect(both.status).toBe(200);
    const invalidBearer = await server.request('GET', '/api/v1/billing/plans', {
      headers: { cookie },
      key: 'cadre_invalid',
    });
    expectApiError(invalidBearer, 401, 'unauthorized');
  });
});
