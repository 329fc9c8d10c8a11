import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../src/modules/audit/audit.tables.js';
import { memberships } from '../src/modules/tenancy/tenancy.tables.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

// The owner's transfer through the management API checks the caller's role under the organization's lock:
// the role the credential carried was read before it. Concurrent requests on real HTTP, on PGlite (its one
// connection runs the transactions one after the other, but each request authenticates before any of them).

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const rolesOf = async (organizationId: string) => {
  const rows = await server.context.database.db
    .select()
    .from(memberships)
    .where(eq(memberships.organizationId, organizationId));
  return Object.fromEntries(rows.map((row) => [row.userId, row.role]));
};

const transferredTo = async (organizationId: string) =>
  (
    await server.context.database.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.organizationId, organizationId),
          eq(auditEvents.action, 'organization.ownership_transferred_to'),
        ),
      )
      .orderBy(auditEvents.seq)
  ).map((event) => event.targetId);

const transfer = (org: TestOrganization, key: string, userId: string) =>
  server.request('POST', `/api/v1/organizations/${org.slug}/ownership-transfer`, { key, body: { userId } });

describe("the owner's ownership transfers, at once", () => {
  it('of several at once exactly one goes through; the others are 403 (no longer the owner)', async () => {
    for (let round = 0; round < 3; round++) {
      const org = await createOrganization(server, 'team');
      const members = await Promise.all(Array.from({ length: 4 }, () => addMember(server, org, 'member')));
      // Every request is authenticated (the key's role read: owner) before any transfer commits.
      const answers = await Promise.all(members.map((userId) => transfer(org, org.ownerKey, userId)));
      const statuses = answers.map((answer) => answer.status);
      expect(
        statuses.filter((status) => status === 200),
        statuses.join(),
      ).toHaveLength(1);
      expect(
        statuses.filter((status) => status === 403),
        statuses.join(),
      ).toHaveLength(members.length - 1);
      for (const answer of answers.filter((a) => a.status === 403)) {
        expect(answer.body).toMatchObject({
          error: { code: 'forbidden', message: expect.stringContaining('no longer the owner') },
        });
      }
      const winner = members[statuses.indexOf(200)]!;
      const roles = await rolesOf(org.id);
      expect(Object.values(roles).filter((role) => role === 'owner')).toHaveLength(1);
      expect(roles[winner]).toBe('owner');
      expect(roles[org.ownerId]).toBe('admin');
      // The others are untouched: the former owner did not take the ownership from the new one.
      for (const other of members.filter((userId) => userId !== winner)) expect(roles[other]).toBe('member');
      expect(await transferredTo(org.id)).toEqual([winner]);
    }
  });

  it('a transfer and a role change of its target at once leave exactly one owner, whichever comes first', async () => {
    for (let round = 0; round < 3; round++) {
      const org = await createOrganization(server, 'team');
      const target = await addMember(server, org, 'admin');
      const adminId = await addMember(server, org, 'admin');
      const admin = await createKey(server, org, adminId);
      const [transferred, demoted] = await Promise.all([
        transfer(org, org.ownerKey, target),
        server.request('PUT', `/api/v1/organizations/${org.slug}/members/${target}`, {
          key: admin.key,
          body: { role: 'member' },
        }),
      ]);
      expect(transferred.status, transferred.text).toBe(200);
      const roles = await rolesOf(org.id);
      expect(Object.values(roles).filter((role) => role === 'owner')).toHaveLength(1);
      expect(roles[target]).toBe('owner');
      expect(roles[org.ownerId]).toBe('admin');
      // The role change either came first (and the transfer then made the member the owner), or found the
      // owner and was refused: an admin never touches the owner.
      expect([200, 403, 409]).toContain(demoted.status);
    }
  });
});
