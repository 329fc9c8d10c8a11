import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scimTokens } from '../../src/modules/scim/scim.tables.js';
import { users } from '../../src/modules/tenancy/tenancy.tables.js';
import { expectApiError } from '../support/assertions.js';
import { onPostgres } from '../support/database.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { createKey, createOrganization, type TestOrganization, uniqueSlug } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { login, PASSWORD, setPassword } from '../support/session.js';
import { type ScimClient as Client, expectScimError, ScimClient } from './scim-client.js';

/**
 * The SCIM life of an organization against two Cadre instances sharing one database (docs/scim.md): a
 * client written from RFC 7644 provisions, updates, deactivates and deletes people and groups through
 * instance `a`; what it ends is refused on instance `b` at once.
 */
export function scimSuite() {
  let a: TestServer;
  let b: TestServer;
  let dns: DnsServer;

  beforeAll(async () => {
    dns = await startDnsServer();
    const domains = { proof: { dnsServers: [dns.address] } };
    a = await startServer({ domains });
    b = await startServer({ domains, database: onPostgres() ? await a.db.reopen() : a.db.database });
  });
  afterAll(async () => {
    await b.app.close();
    if (onPostgres()) await b.db.database.close();
    await a.close();
    await dns.close();
  });

  /** An organization with a verified domain (a real TXT record) and a SCIM token. */
  async function provisioned(): Promise<{
    org: TestOrganization;
    domain: string;
    scim: Client;
    token: string;
  }> {
    const org = await createOrganization(a, 'team');
    const domain = `${uniqueSlug('corp')}.test`;
    const claimed = await a.request<{ data: { id: string; dnsRecord: { name: string; value: string } } }>(
      'POST',
      '/api/v1/domains',
      { key: org.ownerKey, body: { domain } },
    );
    dns.setTxt(claimed.body.data.dnsRecord.name, [claimed.body.data.dnsRecord.value]);
    const verified = await a.request<{ data: { status: string } }>(
      'POST',
      `/api/v1/domains/${claimed.body.data.id}/verify`,
      {
        key: org.ownerKey,
        body: {},
      },
    );
    expect(verified.body.data.status, JSON.stringify(verified.body)).toBe('verified');
    const made = await a.request<{ data: { token: string } }>('POST', '/api/v1/scim/token', {
      key: org.ownerKey,
    });
    expect(made.status, made.text).toBe(201);
    return {
      org,
      domain,
      token: made.body.data.token,
      scim: new ScimClient(`${a.url}/scim/v2`, made.body.data.token),
    };
  }

  const memberRole = async (server: TestServer, org: TestOrganization, userId: string) => {
    const res = await server.request<{ data: Array<{ userId: string; role: string }> }>(
      'GET',
      `/api/v1/organizations/${org.slug}/members?limit=100`,
      { key: org.ownerKey },
    );
    expect(res.status, res.text).toBe(200);
    return res.body.data.find((member) => member.userId === userId)?.role;
  };

  const eventTypes = async (org: TestOrganization) =>
    (
      await a.request<{ data: Array<{ type: string }> }>('GET', '/api/v1/events?limit=100', {
        key: org.ownerKey,
      })
    ).body.data.map((event) => event.type);

  describe('discovery', () => {
    it('ServiceProviderConfig, ResourceTypes and Schemas describe what is served', async () => {
      const { scim } = await provisioned();
      const config = await scim.send<Record<string, { supported: boolean }>>('GET', '/ServiceProviderConfig');
      expect(config.status).toBe(200);
      expect(config.body.patch?.supported).toBe(true);
      expect(config.body.etag?.supported).toBe(true);
      expect(config.body.filter?.supported).toBe(true);
      expect(config.body.bulk?.supported).toBe(false);
      const types = await scim.send<{ Resources: Array<{ id: string; endpoint: string }> }>(
        'GET',
        '/ResourceTypes',
      );
      expect(types.body.Resources.map((type) => type.endpoint).sort()).toEqual(['/Groups', '/Users']);
      const schemas = await scim.send<{ Resources: Array<{ id: string }> }>('GET', '/Schemas');
      expect(schemas.body.Resources.map((schema) => schema.id)).toContain(
        'urn:ietf:params:scim:schemas:core:2.0:User',
      );
      expectScimError(await scim.send('GET', '/Schemas/urn:nothing'), 404);
    });
  });

  describe('Users', () => {
    it('create, read, filter, replace with ETags, deactivate, reactivate, delete', async () => {
      const { org, domain, scim } = await provisioned();
      const created = await scim.createUser(`Ada@${domain}`, {
        name: { givenName: 'Ada', familyName: 'Lovelace' },
        externalId: 'okta-1',
        title: 'Engineer',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const user = created.body;
      expect(user).toMatchObject({ userName: `Ada@${domain}`, active: true, externalId: 'okta-1' });
      expect(user.meta.location).toBe(`${a.url}/scim/v2/Users/${user.id}`);
      expect(created.headers.get('etag')).toBe(user.meta.version);
      const email = `ada@${domain}`;
      expect((user.emails as Array<{ value: string }>)[0]!.value).toBe(email);
      const account = await a.context.tenancy.getUser(
        (await a.context.database.db.select().from(users).where(eq(users.email, email)))[0]!.id,
      );
      expect(account.emailVerifiedAt).not.toBeNull();
      expect(await memberRole(a, org, account.id)).toBe('member');
      expect(await eventTypes(org)).toContain('member.joined');

      // The same userName again, in any case: 409 uniqueness.
      expectScimError(await scim.createUser(`ADA@${domain}`), 409, 'uniqueness');
      // Outside the organization's verified domains: refused.
      expectScimError(await scim.createUser('someone@elsewhere.test'), 400, 'invalidValue');

      const found = await scim.listUsers({ filter: `userName eq "ada@${domain.toUpperCase()}"` });
      expect(found.body).toMatchObject({ totalResults: 1, startIndex: 1, itemsPerPage: 1 });
      expect(found.body.Resources[0]!.id).toBe(user.id);
      expect((await scim.listUsers({ filter: 'externalId eq "okta-1"' })).body.totalResults).toBe(1);
      expect((await scim.listUsers({ filter: 'userName eq "nobody@x.test"' })).body).toMatchObject({
        totalResults: 0,
        Resources: [],
      });

      const replaced = await scim.replaceUser(
        user.id,
        { userName: `ada@${domain}`, displayName: 'Countess', active: true },
        user.meta.version,
      );
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      expect(replaced.body).toMatchObject({ displayName: 'Countess' });
      expect(replaced.body.meta.version).not.toBe(user.meta.version);
      // A write naming the old version: 412, nothing changed.
      expectScimError(
        await scim.patchUser(
          user.id,
          [{ op: 'replace', path: 'displayName', value: 'x' }],
          user.meta.version,
        ),
        412,
      );
      expect((await scim.getUser(user.id)).body.displayName).toBe('Countess');

      // Deactivate as Entra ID sends it ("Replace", a string boolean), then reactivate as Okta does (no path).
      const off = await scim.patchUser(user.id, [{ op: 'Replace', path: 'active', value: 'False' }]);
      expect(off.body, JSON.stringify(off.body)).toMatchObject({ active: false });
      expect(await memberRole(a, org, account.id)).toBeUndefined();
      const on = await scim.patchUser(user.id, [{ op: 'replace', value: { active: true } }]);
      expect(on.body).toMatchObject({ active: true });
      expect(await memberRole(a, org, account.id)).toBe('member');

      const deleted = await scim.deleteUser(user.id);
      expect(deleted.status).toBe(204);
      expectScimError(await scim.getUser(user.id), 404);
      expect(await memberRole(a, org, account.id)).toBeUndefined();
      expect(await eventTypes(org)).toContain('member.removed');
    });

    it('pages with startIndex and count', async () => {
      const { domain, scim } = await provisioned();
      for (let index = 0; index < 5; index++) {
        expect((await scim.createUser(`p${index}@${domain}`)).status).toBe(201);
      }
      const seen: string[] = [];
      for (let startIndex = 1; startIndex <= 5; startIndex += 2) {
        const page = await scim.listUsers({ startIndex, count: 2 });
        expect(page.body).toMatchObject({ totalResults: 5, startIndex });
        expect(page.body.itemsPerPage).toBe(startIndex === 5 ? 1 : 2);
        seen.push(...page.body.Resources.map((resource) => resource.userName as string));
      }
      expect(seen).toEqual([0, 1, 2, 3, 4].map((index) => `p${index}@${domain}`));
      expect((await scim.listUsers({ count: 0 })).body).toMatchObject({ totalResults: 5, itemsPerPage: 0 });
      // Past the end: an empty page, not an error.
      expect((await scim.listUsers({ startIndex: 50 })).body).toMatchObject({
        totalResults: 5,
        Resources: [],
      });
    });

    it('bad filters are 400 invalidFilter; bad bodies 400 in the error shape', async () => {
      const { scim } = await provisioned();
      for (const filter of [
        'userName co "a"',
        'title eq "x"',
        'userName eq',
        'userName eq "a" or userName eq "b"',
        '(',
        'userName eq "unterminated',
      ]) {
        expectScimError(await scim.listUsers({ filter }), 400, 'invalidFilter');
      }
      expectScimError(await scim.listGroups({ filter: 'members eq "x"' }), 400, 'invalidFilter');
      expectScimError(await scim.send('POST', '/Users', { schemas: [] }), 400, 'invalidValue');
      const raw = await fetch(`${scim.baseUrl}/Users`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${(scim as unknown as { token: string }).token}`,
          'content-type': 'application/scim+json',
        },
        body: '{"userName": ',
      });
      expect(raw.status).toBe(400);
      expect(await raw.json()).toMatchObject({ scimType: 'invalidSyntax', status: '400' });
    });

    it('never hands an unproven account to the organization', async () => {
      const { domain, scim } = await provisioned();
      // Someone else's organization invites an address at this domain; the copied link makes an account with
      // the attacker's password that never proved the email.
      const attacker = await createOrganization(a, 'team');
      const victim = `cfo@${domain}`;
      const invitation = await a.request<{ data: { token: string } }>(
        'POST',
        `/api/v1/organizations/${attacker.slug}/invitations`,
        { key: attacker.ownerKey, body: { email: victim, role: 'member' } },
      );
      const accepted = await a.request('POST', `/auth/invitations/${invitation.body.data.token}/accept`, {
        body: { name: 'cfo', password: PASSWORD },
      });
      expect(accepted.status, accepted.text).toBe(200);
      expectScimError(await scim.createUser(victim), 409, 'uniqueness');
    });
  });

  describe('Groups map to roles through the owner rules', () => {
    it('create, list, add and remove members, delete: roles follow', async () => {
      const { org, domain, scim } = await provisioned();
      const rules = await a.request('PUT', '/api/v1/sso/role-mappings', {
        key: org.ownerKey,
        body: { defaultRole: 'member', rules: [{ group: 'Cadre Admins', role: 'admin' }] },
      });
      expect(rules.status, rules.text).toBe(200);
      const grace = (await scim.createUser(`grace@${domain}`)).body;
      const alan = (await scim.createUser(`alan@${domain}`)).body;
      const userIdOf = async (email: string) =>
        (await a.context.database.db.select().from(users).where(eq(users.email, email)))[0]!.id;
      const graceId = await userIdOf(`grace@${domain}`);
      const alanId = await userIdOf(`alan@${domain}`);

      const group = await scim.createGroup('Cadre Admins', [grace.id]);
      expect(group.status, JSON.stringify(group.body)).toBe(201);
      expect(group.body.members).toEqual([expect.objectContaining({ value: grace.id })]);
      expect(await memberRole(a, org, graceId)).toBe('admin');
      expect((await scim.getUser(grace.id)).body.groups).toEqual([
        expect.objectContaining({ value: group.body.id, display: 'Cadre Admins' }),
      ]);
      expectScimError(await scim.createGroup('Cadre Admins'), 409, 'uniqueness');
      const listed = await scim.listGroups({ filter: 'displayName eq "Cadre Admins"' });
      expect(listed.body.totalResults).toBe(1);

      const added = await scim.patchGroup(group.body.id, [
        { op: 'add', path: 'members', value: [{ value: alan.id }] },
      ]);
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      expect(await memberRole(a, org, alanId)).toBe('admin');
      await scim.patchGroup(group.body.id, [{ op: 'remove', path: `members[value eq "${grace.id}"]` }]);
      expect(await memberRole(a, org, graceId)).toBe('member');
      // Entra ID's form: remove with a value list.
      await scim.patchGroup(group.body.id, [{ op: 'Remove', path: 'members', value: [{ value: alan.id }] }]);
      expect(await memberRole(a, org, alanId)).toBe('member');
      await scim.patchGroup(group.body.id, [{ op: 'add', path: 'members', value: [{ value: grace.id }] }]);
      expect(await memberRole(a, org, graceId)).toBe('admin');
      expectScimError(
        await scim.patchGroup(group.body.id, [{ op: 'add', path: 'members', value: [{ value: 'nobody' }] }]),
        400,
        'invalidValue',
      );

      expect((await scim.deleteGroup(group.body.id)).status).toBe(204);
      expect(await memberRole(a, org, graceId)).toBe('member');
      expect(await eventTypes(org)).toContain('member.role_changed');
    });
  });

  describe('deprovisioning on every instance at once', () => {
    it("a deactivated member's key and session are refused by the other instance; their invitations revoked", async () => {
      const { org, domain, scim } = await provisioned();
      const user = (await scim.createUser(`leaver@${domain}`)).body;
      const userId = (
        await a.context.database.db
          .select()
          .from(users)
          .where(eq(users.email, `leaver@${domain}`))
      )[0]!.id;
      await a.request('PUT', `/api/v1/organizations/${org.slug}/members/${userId}`, {
        key: org.ownerKey,
        body: { role: 'admin' },
      });
      const key = await createKey(a, org, userId);
      await setPassword(a, userId);
      const session = await login(b, `leaver@${domain}`, PASSWORD, org.slug);
      const invited = await b.request<{ data: { id: string } }>(
        'POST',
        `/api/v1/organizations/${org.slug}/invitations`,
        {
          key: key.key,
          body: { email: `friend@${domain}`, role: 'member' },
        },
      );
      expect(invited.status, invited.text).toBe(201);
      // Warm both instances' caches so a stale entry would be served if invalidation failed.
      for (const instance of [a, b])
        expect((await instance.request('GET', '/api/v1/me', { key: key.key })).status).toBe(200);

      expect((await scim.patchUser(user.id, [{ op: 'replace', path: 'active', value: false }])).status).toBe(
        200,
      );
      for (const instance of [b, a]) {
        expectApiError(await instance.request('GET', '/api/v1/me', { key: key.key }), 401, 'unauthorized');
        expectApiError(
          await instance.request('GET', '/api/v1/me', { headers: { cookie: session.cookie } }),
          401,
          'unauthorized',
        );
      }
      const pending = await a.request<{ data: Array<{ id: string }> }>(
        'GET',
        `/api/v1/organizations/${org.slug}/invitations`,
        {
          key: org.ownerKey,
        },
      );
      expect(pending.body.data.map((invitation) => invitation.id)).not.toContain(invited.body.data.id);
      const audit = await a.request<{
        data: Array<{ action: string; actor: { kind: string }; metadata: Record<string, unknown> }>;
      }>('GET', `/api/v1/organizations/${org.slug}/audit-events?limit=100`, { key: org.ownerKey });
      const removal = audit.body.data.find((event) => event.action === 'membership.removed');
      expect(removal).toMatchObject({
        actor: { kind: 'scim' },
        metadata: { reason: 'scim', revokedApiKeyIds: [key.id] },
      });
    });

    it('the owner is never deprovisioned by SCIM', async () => {
      const { org, scim } = await provisioned();
      const ownerEmail = `owner@${org.slug}.test`;
      // The owner's address is not at the verified domain: provisioning it is refused outright.
      expectScimError(await scim.createUser(ownerEmail), 400, 'invalidValue');
    });
  });

  describe('the SCIM token', () => {
    it("another organization's token sees nothing of this one; a rotated or revoked token is refused", async () => {
      const first = await provisioned();
      const second = await provisioned();
      const mine = (await first.scim.createUser(`x@${first.domain}`)).body;
      expectScimError(await second.scim.getUser(mine.id), 404);
      expectScimError(
        await second.scim.patchUser(mine.id, [{ op: 'replace', path: 'active', value: false }]),
        404,
      );
      expectScimError(await second.scim.deleteUser(mine.id), 404);
      expect((await second.scim.listUsers()).body.totalResults).toBe(0);
      expect((await first.scim.getUser(mine.id)).body.active).toBe(true);
      // Another organization's user in a group: refused as unknown.
      expectScimError(await second.scim.createGroup('g', [mine.id]), 400, 'invalidValue');

      for (const token of ['', 'scim_nope', `${first.token}x`, first.token.toUpperCase()]) {
        const answer = await new ScimClient(`${a.url}/scim/v2`, token).listUsers();
        expectScimError(answer, 401);
        expect(answer.headers.get('www-authenticate')).toContain('Bearer');
      }
      const rotated = await a.request<{ data: { token: string; tokenStart: string } }>(
        'POST',
        '/api/v1/scim/token',
        {
          key: first.org.ownerKey,
        },
      );
      expectScimError(await first.scim.listUsers(), 401);
      const fresh = new ScimClient(`${b.url}/scim/v2`, rotated.body.data.token);
      expect((await fresh.listUsers()).status).toBe(200);
      const shown = await a.request<{ data: { tokenStart: string } }>('GET', '/api/v1/scim/token', {
        key: first.org.ownerKey,
      });
      expect(shown.text).not.toContain(rotated.body.data.token);
      expect(shown.body.data.tokenStart).toBe(rotated.body.data.tokenStart);
      expect((await a.request('DELETE', '/api/v1/scim/token', { key: first.org.ownerKey })).status).toBe(200);
      expectScimError(await fresh.listUsers(), 401);
      const audit = await a.request<{ data: Array<{ action: string }> }>(
        'GET',
        `/api/v1/organizations/${first.org.slug}/audit-events?limit=100`,
        { key: first.org.ownerKey },
      );
      expect(audit.body.data.map((event) => event.action)).toEqual(
        expect.arrayContaining(['scim.token_rotated', 'scim.token_revoked']),
      );
      // Stored hashed: no column holds the token.
      const rows = await a.context.database.db.select().from(scimTokens);
      expect(JSON.stringify(rows)).not.toContain(rotated.body.data.token);
    });
  });
}
