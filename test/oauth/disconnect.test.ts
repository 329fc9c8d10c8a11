import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/modules/audit/audit.tables.js';
import { connectionAad, connections } from '../../src/modules/oauth/index.js';
import { expectApiError } from '../support/assertions.js';
import { addMember, createKey, createOrganization, createProject } from '../support/fixtures.js';
import { login, setPassword } from '../support/session.js';
import {
  approveAtProvider,
  callback,
  connect,
  type OAuthWorld,
  outcomeOf,
  POST_CLIENT_ID,
  registerIntegration,
  startFlow,
  startOAuthWorld,
} from './harness.js';

let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(() => world.close());

const path = (connectionId: string, projectId = world.projectId, environmentId = world.environmentId) =>
  `/api/v1/projects/${projectId}/environments/${environmentId}/connections/${connectionId}`;

const rowOf = async (id: string) =>
  (await world.server.context.database.db.select().from(connections).where(eq(connections.id, id)))[0];

/** The plaintext tokens Cadre holds for a connection, read as the service would. */
async function tokensOf(id: string) {
  const row = (await rowOf(id))!;
  return {
    accessToken: world.keyRing.decrypt(row.accessTokenCiphertext, connectionAad(row, 'access_token')),
    refreshToken: world.keyRing.decrypt(row.refreshTokenCiphertext!, connectionAad(row, 'refresh_token')),
  };
}

const eventsFor = async (connectionId: string) =>
  world.server.context.database.db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.targetId, connectionId))
    .orderBy(auditEvents.seq);

async function connected(key = world.org.ownerKey): Promise<string> {
  const { params } = await connect(world, key);
  expect(params.oauth_status, JSON.stringify(params)).toBe('success');
  return params.connection_id!;
}

describe('DELETE …/connections/{connectionId}', () => {
  it('revokes the tokens at the provider (RFC 7009), deletes the connection, audits it; again answers 204', async () => {
    const { server, provider, org } = world;
    const id = await connected();
    const tokens = await tokensOf(id);
    expect(await provider.provider.AccessToken.find(tokens.accessToken)).toBeDefined();
    expect(await provider.provider.RefreshToken.find(tokens.refreshToken)).toBeDefined();
    const revocations = provider.revocationRequests.count;

    const res = await server.request('DELETE', path(id), { key: org.ownerKey });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');

    // The provider saw both revocations, and neither token is valid there any more.
    expect(provider.revocationRequests.count - revocations).toBe(2);
    expect(await provider.provider.AccessToken.find(tokens.accessToken)).toBeUndefined();
    expect(await provider.provider.RefreshToken.find(tokens.refreshToken)).toBeUndefined();
    // The row and its encrypted tokens are gone.
    expect(await rowOf(id)).toBeUndefined();
    const list = await server.request<{ data: { connections: Array<{ id: string }> } }>(
      'GET',
      `/api/v1/projects/${world.projectId}/environments/${world.environmentId}/connections`,
      { key: org.ownerKey },
    );
    expect(list.body.data.connections.map((c) => c.id)).not.toContain(id);

    const events = await eventsFor(id);
    expect(events.map((event) => event.action)).toEqual(['connection.created', 'connection.deleted']);
    expect(events[1]).toMatchObject({
      organizationId: org.id,
      actorKind: 'apiKey',
      actorUserId: org.ownerId,
      targetType: 'connection',
      metadata: {
        projectId: world.projectId,
        environmentId: world.environmentId,
        presetKey: 'oidc',
        accountId: 'alice',
        revocation: { outcome: 'revoked' },
      },
    });

    // Idempotent: deleting again (or an id that never existed) answers 204 and records nothing more.
    expect((await server.request('DELETE', path(id), { key: org.ownerKey })).status).toBe(204);
    expect((await server.request('DELETE', path('nothing-here'), { key: org.ownerKey })).status).toBe(204);
    expect(await eventsFor(id)).toHaveLength(2);
    expect(provider.revocationRequests.count - revocations).toBe(2);
  });

  it('a renewed connection is audited as updated; a console session disconnects with its CSRF token', async () => {
    const { server, org } = world;
    const id = await connected();
    expect(await connected()).toBe(id);
    expect((await eventsFor(id)).map((event) => event.action)).toEqual([
      'connection.created',
      'connection.updated',
    ]);

    await setPassword(server, org.ownerId);
    const session = await login(server, `owner@${org.slug}.test`);
    const withoutCsrf = await server.request('DELETE', path(id), { headers: { cookie: session.cookie } });
    expectApiError(withoutCsrf, 403, 'csrf_token_invalid');
    expect(await rowOf(id)).toBeDefined();
    const res = await server.request('DELETE', path(id), {
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
    });
    expect(res.status, res.text).toBe(204);
    expect((await eventsFor(id)).at(-1)).toMatchObject({
      action: 'connection.deleted',
      actorKind: 'session',
    });
  });

  it('deletes the tokens even when the provider fails to revoke them, and records the failure', async () => {
    const { server, provider, org } = world;
    const id = await connected();
    provider.revocationEndpointDown = true;
    try {
      const res = await server.request('DELETE', path(id), { key: org.ownerKey });
      expect(res.status, res.text).toBe(204);
    } finally {
      provider.revocationEndpointDown = false;
    }
    expect(await rowOf(id)).toBeUndefined();
    const deleted = (await eventsFor(id)).at(-1)!;
    expect(deleted.action).toBe('connection.deleted');
    expect(deleted.metadata).toMatchObject({
      revocation: { outcome: 'failed', error: expect.stringContaining('503') },
    });
  });

  it('a provider without a revocation endpoint: the connection is deleted, the event says not_supported', async () => {
    const { server, provider, org } = world;
    await registerIntegration(world, org.id, {
      presetKey: 'github',
      issuer: undefined,
      clientId: POST_CLIENT_ID,
      authorizationEndpoint: `${provider.issuer}/auth`,
      tokenEndpoint: `${provider.issuer}/token`,
      userinfoEndpoint: `${provider.issuer}/me`,
      scopes: ['openid', 'github'],
    });
    const started = await startFlow(world, org.ownerKey, {}, 'github');
    const redirect = await approveAtProvider(world, started);
    const { params } = outcomeOf(await callback(world, redirect, org.ownerKey, started.cookie));
    const id = params.connection_id!;
    const revocations = provider.revocationRequests.count;
    expect((await server.request('DELETE', path(id), { key: org.ownerKey })).status).toBe(204);
    expect(provider.revocationRequests.count).toBe(revocations);
    expect(await rowOf(id)).toBeUndefined();
    expect((await eventsFor(id)).at(-1)?.metadata).toMatchObject({
      presetKey: 'github',
      revocation: { outcome: 'not_supported' },
    });
  });

  it('security: no credential 401, missing permission 403, a grant that does not reach it 404, another organization 404', async () => {
    const { server, org } = world;
    const id = await connected();

    expectApiError(await server.request('DELETE', path(id)), 401, 'unauthorized');
    expectApiError(await server.request('DELETE', path(id), { key: 'cadre_nope' }), 401, 'unauthorized');

    // The owner's key without projects:operate: the environment is reachable (organization grant), the act not.
    const billingOnly = await createKey(server, org, org.ownerId, {
      type: 'organization',
      permissions: ['billing:read'],
    });
    expectApiError(await server.request('DELETE', path(id), { key: billingOnly.key }), 403, 'forbidden');

    // A key for another environment of the same project does not see this one at all.
    const otherEnvironment = await createKey(server, org, org.ownerId, {
      type: 'environment',
      environmentIds: [world.otherEnvironmentId],
      permissions: ['projects:operate'],
    });
    expectApiError(await server.request('DELETE', path(id), { key: otherEnvironment.key }), 404, 'not_found');
    const agentOnly = await createKey(server, org, org.ownerId, {
      type: 'organization',
      permissions: ['agents:run'],
    });
    expectApiError(await server.request('DELETE', path(id), { key: agentOnly.key }), 403, 'forbidden');

    // Another organization: its key cannot name this environment, and this key cannot name its.
    const other = await createOrganization(server, 'team');
    const { project, environments } = await createProject(server, other);
    expectApiError(await server.request('DELETE', path(id), { key: other.ownerKey }), 404, 'not_found');
    expectApiError(
      await server.request('DELETE', path(id, project.id, environments[0]!.id), { key: org.ownerKey }),
      404,
      'not_found',
    );
    // A connection id given under another environment of the caller's own organization is not touched.
    expect(
      (
        await server.request('DELETE', path(id, world.projectId, world.otherEnvironmentId), {
          key: org.ownerKey,
        })
      ).status,
    ).toBe(204);
    expect(await rowOf(id)).toBeDefined();
    expect((await eventsFor(id)).map((event) => event.action)).toEqual(['connection.created']);

    // A member (projects:operate through the role) with a key for exactly this environment may disconnect.
    const memberId = await addMember(server, org, 'member');
    const memberKey = await createKey(server, org, memberId, {
      type: 'environment',
      environmentIds: [world.environmentId],
      permissions: ['projects:operate'],
    });
    expect((await server.request('DELETE', path(id), { key: memberKey.key })).status).toBe(204);
    expect(await rowOf(id)).toBeUndefined();
    expect((await eventsFor(id)).at(-1)).toMatchObject({
      action: 'connection.deleted',
      actorUserId: memberId,
    });
  });

  it('the delete and its event commit together: a failure at commit keeps the connection and records nothing', async () => {
    const { server, org } = world;
    const id = await connected();
    const { db } = server.context.database;
    // Refuses, at commit time, any transaction that deleted a connection: after the delete and the event.
    await db.execute(sql`CREATE FUNCTION refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused at commit'; END $$`);
    await db.execute(sql`CREATE CONSTRAINT TRIGGER refuse_connection_delete AFTER DELETE ON connections
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_commit()`);
    try {
      const res = await server.request('DELETE', path(id), { key: org.ownerKey });
      expectApiError(res, 500, 'internal_error');
    } finally {
      await db.execute(sql`DROP TRIGGER refuse_connection_delete ON connections`);
      await db.execute(sql`DROP FUNCTION refuse_commit()`);
    }
    expect(await rowOf(id)).toBeDefined();
    expect((await eventsFor(id)).map((event) => event.action)).toEqual(['connection.created']);
  });
});
