import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyEntry, parseKeyRing } from '../../src/lib/key-ring.js';
import { ssoProviders } from '../../src/modules/sso/sso.tables.js';
import { expectApiError } from '../support/assertions.js';
import { onPostgres } from '../support/database.js';
import { createKey } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { login, setPassword } from '../support/session.js';
import {
  completeCallback,
  type SsoWorld,
  sessionOf,
  signInThroughProvider,
  startSsoWorld,
} from './harness.js';

// The whole life of single sign-on against oidc-provider on loopback: the owner's test sign-in, first
// sign-in (an account made with the default role), group changes at each sign-in, enforcement with a
// break-glass owner, API keys unaffected, and sessions that end at the organization's maximum age.

let world: SsoWorld;
beforeAll(async () => {
  world = await startSsoWorld();
});
afterAll(() => world.close());

const ownerKey = () => world.org.ownerKey;
const audit = async (action: string) =>
  (
    await world.server.request<{
      data: Array<{ action: string; actor: { userId: string | null }; metadata: Record<string, unknown> }>;
    }>('GET', `/api/v1/organizations/${world.org.id}/audit-events?action=${action}`, { key: ownerKey() })
  ).body.data;

describe('the provider', () => {
  it('is answered without its secret, with the redirect URI to register', async () => {
    const res = await world.server.request<{ data: Record<string, unknown> }>('GET', '/api/v1/sso/provider', {
      key: ownerKey(),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      issuer: world.idp.issuer,
      clientSecretSet: true,
      redirectUri: `${world.server.url}/auth/sso/callback`,
      testedAt: null,
      enforced: false,
    });
    expect(res.text).not.toContain('the-sso-client-secret');
  });

  it('refuses an issuer that is not an OpenID provider (422 at issuer), and an unreachable private one', async () => {
    for (const issuer of [`${world.server.url}/not-a-provider`, 'https://10.0.0.1/']) {
      const res = await world.server.request('PUT', '/api/v1/sso/provider', {
        key: ownerKey(),
        body: { issuer, clientId: 'x', clientSecret: 'y' },
      });
      expectApiError(res, 422, 'validation_failed');
      expect(res.text).toContain('issuer');
    }
  });

  it('cannot be enforced before a successful test sign-in (409)', async () => {
    const res = await world.server.request('PUT', '/api/v1/sso/enforcement', {
      key: ownerKey(),
      body: { enforced: true },
    });
    expectApiError(res, 409, 'conflict');
  });
});

describe('signing in', () => {
  it("an owner's test sign-in records the test and signs nobody in", async () => {
    world.idp.people.set('tester', { email: `tester@${world.domain}` });
    const owner = await (async () => {
      await setPassword(world.server, world.org.ownerId);
      return login(world.server, `owner@${world.org.slug}.test`);
    })();
    const started = await world.server.request<{ data: { authorizationUrl: string } }>(
      'POST',
      '/api/v1/sso/provider/test',
      {
        headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrfToken },
        body: {},
      },
    );
    expect(started.status, started.text).toBe(200);
    const browser = started.headers
      .getSetCookie()
      .find((line) => line.startsWith('cadre_sso='))!
      .split(';')[0]!;
    const { authorizeAtProvider } = await import('../support/oidc-provider.js');
    const callback = await authorizeAtProvider(
      started.body.data.authorizationUrl,
      `${world.server.url}/auth/sso/callback`,
      {
        login: 'tester',
      },
    );
    const outcome = await completeCallback(callback, browser);
    expect(outcome.location.pathname).toBe('/settings');
    expect(outcome.location.searchParams.get('sso')).toBe('tested');
    expect(outcome.sessionCookie).toBeUndefined();
    const provider = await world.server.request<{ data: { testedAt: string | null } }>(
      'GET',
      '/api/v1/sso/provider',
      { key: ownerKey() },
    );
    expect(provider.body.data.testedAt).not.toBeNull();
    expect(await audit('sso.test_succeeded')).toHaveLength(1);
  });

  it('first sign-in by email makes the account with the default role and a session', async () => {
    world.idp.people.set('alice', { email: `alice@${world.domain}`, groups: ['engineering'] });
    const outcome = await signInThroughProvider(
      world,
      `/auth/sso/start?email=alice@${world.domain}&returnTo=/experts`,
      'alice',
    );
    expect(outcome.location.href).toBe(`${world.server.url}/experts`);
    const session = await sessionOf(world, outcome.sessionCookie!);
    expect(session.status, session.text).toBe(200);
    expect(session.body.data.user.email).toBe(`alice@${world.domain}`);
    expect(session.body.data.organizations).toEqual([
      expect.objectContaining({ id: world.org.id, role: 'member' }),
    ]);
  });

  it('maps groups to roles at every sign-in, and the role goes when the group does', async () => {
    const rules = await world.server.request('PUT', '/api/v1/sso/role-mappings', {
      key: ownerKey(),
      body: { defaultRole: 'member', rules: [{ group: 'cadre-admins', role: 'admin' }] },
    });
    expect(rules.status, rules.text).toBe(200);
    world.idp.people.set('alice', {
      email: `alice@${world.domain}`,
      groups: ['engineering', 'cadre-admins'],
    });
    const promoted = await signInThroughProvider(
      world,
      `/auth/sso/start?organization=${world.org.slug}`,
      'alice',
    );
    expect((await sessionOf(world, promoted.sessionCookie!)).body.data.organizations[0]?.role).toBe('admin');

    world.idp.people.set('alice', { email: `alice@${world.domain}`, groups: ['engineering'] });
    const demoted = await signInThroughProvider(
      world,
      `/auth/sso/start?organization=${world.org.slug}`,
      'alice',
    );
    expect((await sessionOf(world, demoted.sessionCookie!)).body.data.organizations[0]?.role).toBe('member');
    const changes = (await audit('membership.role_changed_to_admin')).concat(
      await audit('membership.role_changed_to_member'),
    );
    expect(changes).toHaveLength(2);
  });

  it('a session made by single sign-on ends at the maximum age: the person signs in again', async () => {
    const provider = await world.server.request<{ data: Record<string, unknown> }>(
      'GET',
      '/api/v1/sso/provider',
      { key: ownerKey() },
    );
    const changed = await world.server.request('PUT', '/api/v1/sso/provider', {
      key: ownerKey(),
      body: {
        issuer: provider.body.data.issuer,
        clientId: provider.body.data.clientId,
        sessionMaxAgeSeconds: 600,
      },
    });
    expect(changed.status, changed.text).toBe(200);
    const outcome = await signInThroughProvider(
      world,
      `/auth/sso/start?email=alice@${world.domain}`,
      'alice',
    );
    expect((await sessionOf(world, outcome.sessionCookie!)).status).toBe(200);
    world.clock.advance(601_000);
    expectApiError(await sessionOf(world, outcome.sessionCookie!), 401, 'unauthorized');
  });
});

describe('enforcement', () => {
  it('refuses passwords to the domain’s people, keeps the break-glass owner’s (audited) and API keys', async () => {
    // An account of the domain with a password and a key, made before enforcement.
    const alice = await world.server.context.tenancy.findUserByEmail(`alice@${world.domain}`);
    await setPassword(world.server, alice!.id);
    const aliceKey = await createKey(world.server, world.org, alice!.id, {
      type: 'organization',
      permissions: ['members:read'],
    });
    // The owner joins the domain: a person of the domain, named as break-glass.
    const ownerEmail = `owner@${world.org.slug}.test`;
    const owner = await login(world.server, ownerEmail);
    expect(owner.res.status).toBe(200);

    const on = await world.server.request<{ data: { enforced: boolean } }>('PUT', '/api/v1/sso/enforcement', {
      key: ownerKey(),
      body: { enforced: true, breakGlassUserIds: [world.org.ownerId] },
    });
    expect(on.status, on.text).toBe(200);
    expect(on.body.data.enforced).toBe(true);

    const refused = await world.server.request('POST', '/auth/login', {
      body: { email: `alice@${world.domain}`, password: 'correct horse battery staple' },
    });
    expectApiError(refused, 403, 'forbidden');
    expect(refused.text).toContain('single sign-on');
    // A wrong password is refused the same way: the refusal says nothing about the password.
    const wrong = await world.server.request('POST', '/auth/login', {
      body: { email: `alice@${world.domain}`, password: 'not it at all' },
    });
    expectApiError(wrong, 403, 'forbidden');

    // Password-based invitations to the domain's people are refused; others' are not.
    const invite = (email: string) =>
      world.server.request('POST', `/api/v1/organizations/${world.org.id}/invitations`, {
        key: ownerKey(),
        body: { email, role: 'member' },
      });
    expectApiError(await invite(`carol@${world.domain}`), 403, 'forbidden');
    expect((await invite('guest@elsewhere.example')).status).toBe(201);

    // Her API key keeps working, and single sign-on still signs her in.
    expect((await world.server.request('GET', '/api/v1/me', { key: aliceKey.key })).status).toBe(200);
    const sso = await signInThroughProvider(world, `/auth/sso/start?email=alice@${world.domain}`, 'alice');
    expect(sso.sessionCookie).toBeDefined();

    // The owner's address is at another domain; verify it too so enforcement reaches them, then break glass.
    const { verifyDomain } = await import('./harness.js');
    await verifyDomain(world, world.org, `${world.org.slug}.test`);
    expect((await login(world.server, ownerEmail)).res.status).toBe(200);
    const used = await audit('sso.break_glass_used');
    expect(used).toHaveLength(1);
    expect(used[0]?.actor.userId).toBe(world.org.ownerId);
  });

  it('the owner cannot name a non-owner as break-glass (422)', async () => {
    const alice = await world.server.context.tenancy.findUserByEmail(`alice@${world.domain}`);
    const res = await world.server.request('PUT', '/api/v1/sso/enforcement', {
      key: ownerKey(),
      body: { enforced: true, breakGlassUserIds: [alice!.id] },
    });
    expectApiError(res, 422, 'validation_failed');
  });
});

describe('key rotation', () => {
  /** Another instance on the same database whose key ring is `ring`. */
  async function instance(ring: string, opened: Array<() => Promise<void>>): Promise<TestServer> {
    const database = onPostgres() ? await world.server.db.reopen() : world.server.db.database;
    const server = await startServer({ database, clock: world.clock, keyRing: parseKeyRing(ring) });
    opened.push(async () => {
      await server.close();
      if (onPostgres()) await database.close();
    });
    return server;
  }

  it('cadre admin rotate-encryption-key moves the client secret to the newest key; the old key can then go', async () => {
    const opened: Array<() => Promise<void>> = [];
    try {
      const k2 = generateKeyEntry('k2');
      const rotated = await instance(`${k2},${world.keyEntry}`, opened);
      const run = await rotated.context.reencryptAll();
      expect(run.ssoProviders).toBeGreaterThanOrEqual(1);
      expect(run.done).toBe(true);
      const rows = await world.server.context.database.db.select().from(ssoProviders);
      for (const row of rows) expect(row.clientSecretCiphertext).toMatch(/^v1\.k2\./);
      // A ring holding only the new key still signs in with the provider's secret.
      const newOnly = await instance(k2, opened);
      const provider = await newOnly.context.sso.providers.forSignIn(world.org.id);
      expect(provider?.clientSecret).toBe('the-sso-client-secret');
    } finally {
      for (const close of opened) await close();
    }
  });
});
