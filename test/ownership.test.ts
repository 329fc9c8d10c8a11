import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberships } from '../src/modules/tenancy/tenancy.tables.js';
import { expectApiError, expectRegistryError } from './support/assertions.js';
import { addMember, createOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

type Membership = { userId: string; role: string };
type Events = { data: { events: Array<{ action: string; targetId: string; actor: { kind: string } }> } };

const rolesOf = async (server: TestServer, organizationId: string) => {
  const rows = await server.context.database.db
    .select()
    .from(memberships)
    .where(eq(memberships.organizationId, organizationId));
  return Object.fromEntries(rows.map((row) => [row.userId, row.role]));
};

describe('the owner and ownership transfers', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("the owner's role cannot be changed through the member role endpoint", async () => {
    const org = await createOrganization(server);
    for (const role of ['admin', 'member']) {
      const res = await server.admin('PUT', `/admin/v1/organizations/${org.id}/members/${org.ownerId}`, {
        role,
      });
      expectApiError(res, 409, 'conflict');
      expect(res.body).toMatchObject({
        error: { message: expect.stringContaining('transfer the ownership') },
      });
    }
    expect((await rolesOf(server, org.id))[org.ownerId]).toBe('owner');
    // The owner's keys still work with the owner's rights.
    expect((await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey })).status).toBe(200);
  });

  it('a transfer makes the member the owner and the owner an admin, atomically, and is audited', async () => {
    const org = await createOrganization(server);
    const memberId = await addMember(server, org, 'member');
    const res = await server.admin<{ data: { owner: Membership; previousOwner: Membership } }>(
      'POST',
      `/admin/v1/organizations/${org.slug}/ownership-transfer`,
      { userId: memberId },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.owner).toMatchObject({ userId: memberId, role: 'owner' });
    expect(res.body.data.previousOwner).toMatchObject({ userId: org.ownerId, role: 'admin' });
    expect(await rolesOf(server, org.id)).toEqual({ [memberId]: 'owner', [org.ownerId]: 'admin' });
    const events = await server.admin<Events>('GET', `/admin/v1/organizations/${org.id}/audit-events`);
    const actions = events.body.data.events.map((event) => [event.action, event.targetId]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['organization.ownership_transferred_to', memberId],
        ['organization.ownership_transferred_from', org.ownerId],
      ]),
    );
    // The former owner's key lost what only an owner may do, at once: deleting Experts needs the owner.
    expectRegistryError(
      await server.request('DELETE', '/registry/experts/nothing-here%401.0.0', { key: org.ownerKey }),
      403,
    );
  });

  it('refuses a user who is not a member (404) and leaves the owner unchanged', async () => {
    const org = await createOrganization(server);
    const other = await createOrganization(server);
    const res = await server.admin('POST', `/admin/v1/organizations/${org.id}/ownership-transfer`, {
      userId: other.ownerId,
    });
    expectApiError(res, 404, 'not_found');
    expect((await rolesOf(server, org.id))[org.ownerId]).toBe('owner');
  });

  it('concurrent transfers to different members leave exactly one owner', async () => {
    const org = await createOrganization(server);
    const members = await Promise.all(Array.from({ length: 6 }, () => addMember(server, org, 'member')));
    const answers = await Promise.all(
      members.map((userId) =>
        server.admin('POST', `/admin/v1/organizations/${org.id}/ownership-transfer`, { userId }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(members.map(() => 200));
    // Each answer is its own transfer as it committed, not what a later one left behind.
    for (const [i, answer] of answers.entries()) {
      const { owner, previousOwner } = (
        answer.body as { data: Record<string, { userId: string; role: string }> }
      ).data;
      expect(owner).toMatchObject({ userId: members[i], role: 'owner' });
      expect(previousOwner).toMatchObject({ role: 'admin' });
      expect(previousOwner!.userId).not.toBe(members[i]);
    }
    const roles = Object.values(await rolesOf(server, org.id));
    expect(roles.filter((role) => role === 'owner')).toHaveLength(1);
    expect(roles.filter((role) => role === 'admin')).toHaveLength(6);
  });
});
