import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/assertions.js';
import { addMember, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { type ConsoleLogin, login, setPassword } from './support/session.js';

let server: TestServer;
let org: TestOrganization;
let owner: ConsoleLogin;
let secondSession: ConsoleLogin;
let n = 0;

const checkout = (
  session: ConsoleLogin | undefined,
  body: Record<string, unknown>,
  extra: Record<string, string> = {},
) =>
  server.request('POST', `/api/v1/organizations/${org.slug}/billing/checkout`, {
    headers: { 'idempotency-key': `csrf-${n++}`, ...(session ? { cookie: session.cookie } : {}), ...extra },
    body: {
      planKey: 'plus',
      successUrl: 'https://console.example.com/ok',
      cancelUrl: 'https://console.example.com/no',
      ...body,
    },
  });

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  owner = await login(server, `owner@${org.slug}.test`);
  secondSession = await login(server, `owner@${org.slug}.test`);
});
afterAll(() => server.close());

describe('CSRF on billing POSTs (token in the JSON body)', () => {
  it("refuses a console-session checkout without, with a wrong, or with another session's token", async () => {
    expectApiError(await checkout(owner, {}), 403, 'csrf_token_invalid');
    expectApiError(await checkout(owner, { csrfToken: 'wrong' }), 403, 'csrf_token_invalid');
    expectApiError(await checkout(owner, { csrfToken: secondSession.csrfToken }), 403, 'csrf_token_invalid');
    expectApiError(await checkout(owner, { csrfToken: 42 }), 403, 'csrf_token_invalid');
    // In a header instead of the body: not where billing expects it.
    expectApiError(await checkout(owner, {}, { 'x-csrf-token': owner.csrfToken }), 403, 'csrf_token_invalid');
  });

  it('checks the token before the body is validated (a forged request learns nothing)', async () => {
    expectApiError(
      await checkout(owner, { planKey: 'nope', successUrl: 'relative' }),
      403,
      'csrf_token_invalid',
    );
  });

  it("accepts the session's own token", async () => {
    const res = await checkout(owner, { csrfToken: owner.csrfToken });
    expect(res.status).toBe(200);
    const portal = await server.request('POST', `/api/v1/organizations/${org.id}/billing/portal`, {
      headers: { cookie: secondSession.cookie, 'idempotency-key': 'portal-1' },
      body: { returnUrl: 'https://console.example.com/', csrfToken: secondSession.csrfToken },
    });
    expect(portal.status).toBe(200);
    const refused = await server.request('POST', `/api/v1/organizations/${org.id}/billing/portal`, {
      headers: { cookie: secondSession.cookie, 'idempotency-key': 'portal-2' },
      body: { returnUrl: 'https://console.example.com/' },
    });
    expectApiError(refused, 403, 'csrf_token_invalid');
  });

  it('needs no token from a Bearer request and ignores one it sends', async () => {
    expect(
      (
        await server.request('POST', `/api/v1/organizations/${org.id}/billing/checkout`, {
          key: org.ownerKey,
          headers: { 'idempotency-key': 'bearer-1' },
          body: { planKey: 'plus', successUrl: 'https://a.example/', cancelUrl: 'https://a.example/' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.request('POST', `/api/v1/organizations/${org.id}/billing/checkout`, {
          key: org.ownerKey,
          headers: { 'idempotency-key': 'bearer-2' },
          body: {
            planKey: 'plus',
            successUrl: 'https://a.example/',
            cancelUrl: 'https://a.example/',
            csrfToken: 'junk',
          },
        })
      ).status,
    ).toBe(200);
  });

  it('replays an idempotent answer to a retry from a new session of the same user (csrfToken is not part of the request)', async () => {
    const first = await checkout(
      owner,
      { csrfToken: owner.csrfToken },
      { 'idempotency-key': 'same-user-retry' },
    );
    const retry = await checkout(
      secondSession,
      { csrfToken: secondSession.csrfToken },
      { 'idempotency-key': 'same-user-retry' },
    );
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  it('still applies permissions after CSRF: a member session cannot manage billing', async () => {
    const memberId = await addMember(server, org, 'member');
    await setPassword(server, memberId);
    const member = await login(server, (await server.context.tenancy.getUser(memberId)).email);
    expectApiError(await checkout(member, { csrfToken: member.csrfToken }), 403, 'forbidden');
    const read = await server.request('GET', `/api/v1/organizations/${org.id}/billing/subscription`, {
      headers: { cookie: member.cookie },
    });
    expect(read.status).toBe(200);
  });
});

describe('CSRF elsewhere (X-CSRF-Token header)', () => {
  it('guards every state-changing route for console sessions, and never GETs', async () => {
    const create = (headers: Record<string, string>) =>
      server.request<{ data: { id: string } }>('POST', '/api/v1/api-keys', {
        headers: { cookie: owner.cookie, ...headers },
        body: { name: 'from console', grants: { type: 'organization', permissions: ['billing:read'] } },
      });
    expectApiError(await create({}), 403, 'csrf_token_invalid');
    expectApiError(await create({ 'x-csrf-token': secondSession.csrfToken }), 403, 'csrf_token_invalid');
    const created = await create({ 'x-csrf-token': owner.csrfToken });
    expect(created.status).toBe(200);
    const id = created.body.data.id;

    expect(
      (await server.request('GET', `/api/v1/api-keys/${id}`, { headers: { cookie: owner.cookie } })).status,
    ).toBe(200);
    const revokeNoToken = await server.request('DELETE', `/api/v1/api-keys/${id}`, {
      headers: { cookie: owner.cookie },
    });
    expectApiError(revokeNoToken, 403, 'csrf_token_invalid');
    const revoked = await server.request('DELETE', `/api/v1/api-keys/${id}`, {
      headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrfToken },
    });
    expect(revoked.status).toBe(200);
  });
});
