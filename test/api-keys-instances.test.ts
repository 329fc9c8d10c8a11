import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/assertions.js';
import { onPostgres } from './support/database.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

// Two instances, each with its own key cache and change-bus listener. On PostgreSQL they have separate
// connection pools, exactly like two processes; on PGlite they share the one embedded database.
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

describe('API key revocation across instances', () => {
  it('a key revoked on one instance is refused by the other on the very next request (20 rounds)', async () => {
    for (let round = 0; round < 20; round++) {
      const victim = await createKey(a, org, org.ownerId);
      // Warm both caches so a stale entry would be served if invalidation failed.
      expect((await a.request('GET', '/api/v1/api-keys?limit=1', { key: victim.key })).status).toBe(200);
      expect((await b.request('GET', '/api/v1/api-keys?limit=1', { key: victim.key })).status).toBe(200);
      const [revoker, other] = round % 2 ? [a, b] : [b, a];
      expect(
        (await revoker.request('DELETE', `/api/v1/api-keys/${victim.id}`, { key: org.ownerKey })).status,
      ).toBe(200);
      expectApiError(
        await other.request('GET', '/api/v1/api-keys?limit=1', { key: victim.key }),
        401,
        'unauthorized',
      );
      expectApiError(
        await revoker.request('GET', '/api/v1/api-keys?limit=1', { key: victim.key }),
        401,
        'unauthorized',
      );
    }
  });

  it('a role change made through one instance applies to cached keys on the other at once', async () => {
    const adminId = await addMember(a, org, 'admin');
    const key = await createKey(a, org, adminId, {
      type: 'organization',
      permissions: ['billing:manage', 'api-keys:read'],
    });
    const target = await createKey(a, org, org.ownerId);
    expect((await b.request('GET', `/api/v1/api-keys/${target.id}`, { key: key.key })).status).toBe(200);
    expect(
      (await a.admin('PUT', `/admin/v1/organizations/${org.id}/members/${adminId}`, { role: 'member' }))
        .status,
    ).toBe(200);
    expectApiError(
      await b.request('GET', `/api/v1/api-keys/${target.id}`, { key: key.key }),
      403,
      'forbidden',
    );
  });
});
