import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from '../../src/http/rate-limit/redis-store.js';
import type { RateLimitStore } from '../../src/http/rate-limit/store.js';
import { expectApiError } from '../support/assertions.js';
import { onPostgres } from '../support/database.js';
import { createOrganization, type TestOrganization, uniqueSlug } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { type RedisServer, startRedis } from '../support/servers.js';
import { PASSWORD, setPassword } from '../support/session.js';

// One budget of wrong passwords per account (docs/sessions.md, "Login throttling"), shared by sign-in and
// invitation links and by every instance on one Redis: two real instances on one database, a real redis-server.

const limits = { perAccount: 10, perAccountAllAddresses: 12, perIp: 1_000, windowMs: 15 * 60_000 };
let redis: RedisServer;
let store: RateLimitStore;
let a: TestServer;
let b: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  redis = await startRedis();
  store = createRedisStore({ url: redis.url, prefix: `guess-${Date.now()}:`, onError: () => undefined });
  for (let i = 0; i < 50; i++) {
    try {
      await store.hit('ready', 1, 1_000, Date.now());
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  a = await startServer({ loginLimits: limits, rateLimitStore: store });
  b = await startServer({
    database: onPostgres() ? await a.db.reopen() : a.db.database,
    loginLimits: limits,
    rateLimitStore: store,
  });
  org = await createOrganization(a, 'team');
});
afterAll(async () => {
  await b.app.close();
  if (onPostgres()) await b.db.database.close();
  await a.close();
  await store.close();
  await redis.stop();
});

describe('wrong passwords for one account, by sign-in and by invitation, on two instances', () => {
  it('draw on one budget', async () => {
    // An account with a password (the operator made it), invited to another organization.
    const other = await createOrganization(a, 'team');
    const email = `target-${uniqueSlug('x')}@people.test`;
    const added = await a.admin<{ data: { user: { id: string } } }>(
      'POST',
      `/admin/v1/organizations/${other.slug}/members`,
      { email, role: 'member' },
    );
    await setPassword(a, added.body.data.user.id);
    const invitation = await a.request<{ data: { token: string } }>(
      'POST',
      `/api/v1/organizations/${org.slug}/invitations`,
      { key: org.ownerKey, body: { email, role: 'admin' } },
    );
    const token = invitation.body.data.token;
    const guessLink = (server: TestServer, password: string) =>
      server.request('POST', `/auth/invitations/${token}/accept`, { body: { password } });
    const signIn = (server: TestServer, password: string) =>
      server.request('POST', '/auth/login', { body: { email, password } });

    for (let i = 0; i < 8; i++)
      expectApiError(await guessLink(a, `wrong guess ${i}!!`), 422, 'validation_failed');
    for (let i = 0; i < 2; i++) expectApiError(await signIn(b, `wrong guess ${i}!!`), 401, 'unauthorized');
    // Ten wrong passwords for the account, through two routes and two instances: the link takes no more.
    expectApiError(await guessLink(b, PASSWORD), 429, 'rate_limited');

    for (let i = 0; i < 2; i++) expectApiError(await signIn(a, `wrong again ${i}!!`), 401, 'unauthorized');
    // Twelve: an address the account never signed in from is throttled, on either instance.
    const refused = await signIn(b, PASSWORD);
    expectApiError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
