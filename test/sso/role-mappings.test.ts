import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRoleMappings } from '../../src/modules/sso/index.js';
import { expectApiError } from '../support/assertions.js';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'team');
});
afterAll(() => server.close());

const PATH = '/api/v1/sso/role-mappings';

describe('evaluating role mappings', () => {
  const mappings = {
    defaultRole: 'member' as const,
    rules: [
      { group: 'engineering', role: 'member' as const },
      { group: 'platform-admins', role: 'admin' as const },
    ],
  };
  it('gives the highest role any of the groups maps to', () => {
    expect(evaluateRoleMappings(mappings, ['engineering', 'platform-admins'])).toBe('admin');
    expect(evaluateRoleMappings(mappings, ['engineering'])).toBe('member');
  });
  it('gives the default role when no rule names a group, comparing values exactly', () => {
    expect(evaluateRoleMappings(mappings, [])).toBe('member');
    expect(evaluateRoleMappings(mappings, ['Platform-Admins'])).toBe('member');
    expect(evaluateRoleMappings({ ...mappings, defaultRole: 'admin' }, ['sales'])).toBe('admin');
  });
});

describe('the role mapping API', () => {
  it('answers the member default before any rule is written', async () => {
    const res = await server.request('GET', PATH, { key: org.ownerKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ data: { defaultRole: 'member', rules: [], updatedAt: null } });
  });

  it('replaces the rules, is read back, applies to roleFor, and is audited with before and after', async () => {
    const body = { defaultRole: 'member', rules: [{ group: 'cadre-admins', role: 'admin' }] };
    const res = await server.request<{ data: { updatedAt: string } }>('PUT', PATH, {
      key: org.ownerKey,
      body,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject(body);
    const read = await server.request('GET', PATH, { key: org.ownerKey });
    expect(read.body).toEqual(res.body);

    const mappings = server.context.sso.roleMappings;
    expect(await mappings.roleFor(org.id, ['cadre-admins'])).toBe('admin');
    expect(await mappings.roleFor(org.id, ['someone-else'])).toBe('member');

    const audit = await server.request<{ data: Array<{ action: string; metadata: unknown }> }>(
      'GET',
      `/api/v1/organizations/${org.id}/audit-events?action=sso.role_mappings_changed`,
      { key: org.ownerKey },
    );
    expect(audit.body.data[0]?.metadata).toEqual({
      from: { defaultRole: 'member', rules: [] },
      to: body,
    });
  });

  it('refuses owner as a mapped role, a group named twice, and unknown fields (422)', async () => {
    for (const body of [
      { defaultRole: 'owner', rules: [] },
      { defaultRole: 'member', rules: [{ group: 'x', role: 'owner' }] },
      {
        defaultRole: 'member',
        rules: [
          { group: 'x', role: 'admin' },
          { group: 'x', role: 'member' },
        ],
      },
      { defaultRole: 'member', rules: [], extra: true },
    ]) {
      expectApiError(
        await server.request('PUT', PATH, { key: org.ownerKey, body }),
        422,
        'validation_failed',
      );
    }
  });

  it("is the owner's: an admin's key is refused (403) and another organization's rules are its own", async () => {
    const adminId = await addMember(server, org, 'admin');
    const admin = await createKey(server, org, adminId);
    expectApiError(await server.request('GET', PATH, { key: admin.key }), 403, 'forbidden');
    const other = await createOrganization(server, 'team');
    const read = await server.request('GET', PATH, { key: other.ownerKey });
    expect(read.body).toMatchObject({ data: { rules: [] } });
    expect(await server.context.sso.roleMappings.roleFor(other.id, ['cadre-admins'])).toBe('member');
  });
});
