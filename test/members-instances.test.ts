import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/assertions.js';
import { onPostgres } from './support/database.js';
import { createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { login, PASSWORD } from './support/session.js';

// Two instances on one database, each with its own API-key cache and change-bus listener (as in
// api-keys-instances.test.ts): a member removed through one is refused by the other on the very next request.
let a: TestServer;
let b: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  a = await startServer();
  b = await startServer({ database: onPostgres() ? await a.db.reopen() : a.db.database });
  org = await createOrganization(a, 'team');
});
afterAll(async () => {
  await b.app.close();
  if (onPostgres()) await b.db.database.close();
  await a.close();
});

/** Invited through `a` (no SMTP there: the inviter copies the link), accepted through `b`. */
async function join(address: string): Promise<string> {
  const invitation = await a.request<{ data: { token: string; emailSent: boolean } }>(
    'POST',
    `/api/v1/organizations/${org.slug}/invitations`,
    { key: org.ownerKey, body: { email: address, role: 'member' } },
  );
  expect(invitation.status, invitation.text).toBe(201);
  expect(invitation.body.data.emailSent).toBe(false);
  const accepted = await b.request<{ data: { user: { id: string } } }>(
    'POST',
    `/auth/invitations/${invitation.body.data.token}/accept`,
    { body: { name: address, password: PASSWORD } },
  );
  expect(accepted.status, accepted.text).toBe(200);
  return accepted.body.data.user.id;
}

describe('removing a member across instances', () => {
  it("a removed member's key and session are refused by the other instance at once (5 rounds)", async () => {
    for (let round = 0; round < 5; round++) {
      const userId = await join(`round-${round}@instances.test`);
      const key = await createKey(a, org, userId, { type: 'organization', permissions: ['members:read'] });
      const session = await login(b, `round-${round}@instances.test`, PASSWORD, org.slug);
      // Warm both caches so a stale entry would be served if invalidation failed.
      for (const instance of [a, b]) {
        expect((await instance.request('GET', '/api/v1/me', { key: key.key })).status).toBe(200);
      }
      const [remover, other] = round % 2 ? [a, b] : [b, a];
      const removed = await remover.request('DELETE', `/api/v1/organizations/${org.slug}/members/${userId}`, {
        key: org.ownerKey,
      });
      expect(removed.status, removed.text).toBe(200);
      for (const instance of [other, remover]) {
        expectApiError(await instance.request('GET', '/api/v1/me', { key: key.key }), 401, 'unauthorized');
        expectApiError(
          await instance.request('GET', '/api/v1/me', { headers: { cookie: session.cookie } }),
          401,
          'unauthorized',
        );
      }
    }
  });
});
