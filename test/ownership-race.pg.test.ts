import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberships } from '../src/modules/tenancy/tenancy.tables.js';
import { addMember, createOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

// test/ownership-race.test.ts on PostgreSQL, where the transfers' transactions really run at once (a pool of
// 10 connections) and wait on the organization's row lock instead of PGlite's single connection: the caller's
// role is read after that wait, so exactly one transfer goes through.

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe("the owner's ownership transfers at once, on PostgreSQL", () => {
  it('exactly one goes through, the others are 403; one owner, the former owner an admin', async () => {
    for (let round = 0; round < 3; round++) {
      const org = await createOrganization(server, 'team');
      const members = await Promise.all(Array.from({ length: 6 }, () => addMember(server, org, 'member')));
      const answers = await Promise.all(
        members.map((userId) =>
          server.request('POST', `/api/v1/organizations/${org.slug}/ownership-transfer`, {
            key: org.ownerKey,
            body: { userId },
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(
        statuses.filter((status) => status === 200),
        statuses.join(),
      ).toHaveLength(1);
      expect(
        statuses.filter((status) => status === 403),
        statuses.join(),
      ).toHaveLength(members.length - 1);
      const rows = await server.context.database.db
        .select()
        .from(memberships)
        .where(eq(memberships.organizationId, org.id));
      const roles = Object.fromEntries(rows.map((row) => [row.userId, row.role]));
      expect(Object.values(roles).filter((role) => role === 'owner')).toHaveLength(1);
      expect(roles[members[statuses.indexOf(200)]!]).toBe('owner');
      expect(roles[org.ownerId]).toBe('admin');
    }
  });
});
