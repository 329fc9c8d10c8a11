import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connections } from '../../src/modules/oauth/index.js';
import {
  approveAtProvider,
  CLIENT_ID,
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

describe('OAuth happy path against a real OpenID provider', () => {
  it('starts, signs in and consents at the provider, calls back, stores an encrypted Connection, refreshes', async () => {
    const { org, server } = world;
    const started = await startFlow(world, org.ownerKey, { returnTo: '/settings/connections?tab=oauth' });

    // The redirect to the provider: code flow with PKCE S256 and a fresh state; no API key anywhere.
    expect(started.location.origin + started.location.pathname).toBe(`${world.provider.issuer}/auth`);
    const query = Object.fromEntries(started.location.searchParams);
    expect(query).toMatchObject({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${server.url}/api/oauth/callback/oidc`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(query.state!.length).toBeGreaterThanOrEqual(22);
    expect(query.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(started.location.href).not.toContain(org.ownerKey);
    expect(started.setCookie).toMatch(
      /^cadre_oauth_state=[^;]+; Max-Age=600; Path=\/api\/oauth; HttpOnly; SameSite=Lax$/,
    );
    // The cookie is encrypted: neither the state nor the verifier can be read from it.
    expect(started.cookie).not.toContain(query.state!);

    const redirect = await approveAtProvider(world, started);
    expect(redirect.searchParams.get('code')).toBeTruthy();
    const res = await callback(world, redirect, org.ownerKey, started.cookie);
    const { location, params } = outcomeOf(res);
    expect(`${location.origin}${location.pathname}`).toBe(`${server.url}/settings/connections`);
    expect(params).toEqual({
      tab: 'oauth',
      oauth_status: 'success',
      connection_id: expect.any(String),
      preset: 'oidc',
    });
    expect(res.headers.get('set-cookie')).toMatch(
      /^cadre_oauth_state=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=\/api\/oauth; HttpOnly; SameSite=Lax$/,
    );

    const list = await server.request<{ data: { connections: Array<Record<string, unknown>> } }>(
      'GET',
      `/api/v1/projects/${world.projectId}/environments/${world.environmentId}/connections`,
      { key: org.ownerKey },
    );
    expect(list.status).toBe(200);
    expect(list.body.data.connections).toEqual([
      {
        id: params.connection_id,
        organizationId: org.id,
        projectId: world.projectId,
        environmentId: world.environmentId,
        presetKey: 'oidc',
        integrationVersionId: expect.any(String),
        accountId: 'alice',
        accountLabel: 'alice@provider.test',
        scopes: expect.arrayContaining(['openid', 'email', 'profile']),
        status: 'active',
        expiresAt: expect.any(String),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);

    // Tokens are stored encrypted under the current key and never appear in the API.
    const token = await server.context.connectionTokens.getAccessToken(params.connection_id!);
    expect(token.accessToken.length).toBeGreaterThan(10);
    expect(list.text).not.toContain(token.accessToken);
    const [row] = await server.context.database.db
      .select()
      .from(connections)
      .where(eq(connections.id, params.connection_id!));
    expect(row!.accessTokenCiphertext).toMatch(/^v1\.k1\./);
    expect(row!.refreshTokenCiphertext).toMatch(/^v1\.k1\./);
    expect(row!.accessTokenCiphertext).not.toContain(token.accessToken);

    // Refresh: within five minutes of expiry the next caller gets a new token from the refresh grant.
    const before = world.provider.tokenRequests.grantTypes.length;
    world.clock.advance(56 * 60_000);
    const refreshed = await server.context.connectionTokens.getAccessToken(params.connection_id!);
    expect(refreshed.accessToken).not.toBe(token.accessToken);
    expect(world.provider.tokenRequests.grantTypes.slice(before)).toEqual(['refresh_token']);
    expect(refreshed.expiresAt!.getTime()).toBe(world.clock.now().getTime() + 3600_000);

    // Connecting the same environment again updates the one Connection (upsert).
    const again = await connect(world, org.ownerKey);
    expect(again.params.connection_id).toBe(params.connection_id);

    // Billing usage counts the organization's Connections.
    const usage = await server.request<{ data: { counters: Array<{ key: string; used: number }> } }>(
      'GET',
      `/api/v1/organizations/${org.id}/billing/usage`,
      { key: org.ownerKey },
    );
    expect(usage.body.data.counters.find((counter) => counter.key === 'connections')?.used).toBe(1);
  });
});

describe('OpenAPI', () => {
  it('documents the OAuth, connections and integration endpoints with their redirects', async () => {
    const res = await world.server.request<{
      paths: Record<string, Record<string, Record<string, unknown>>>;
    }>('GET', '/openapi.json');
    const { paths } = res.body;
    const start = paths['/api/oauth/start/{presetKey}']!.get!;
    expect(start.operationId).toBe('startOAuth');
    expect(Object.keys(start.responses as object)).toEqual(
      expect.arrayContaining(['302', '401', '403', '404', '409', '422']),
    );
    expect(paths['/api/oauth/callback/{presetKey}']!.get!.operationId).toBe('completeOAuth');
    expect(
      paths['/api/v1/projects/{projectId}/environments/{environmentId}/connections']!.get!.operationId,
    ).toBe('listConnections');
    expect(paths['/admin/v1/organizations/{org}/integrations']!.post!.operationId).toBe(
      'adminSaveIntegration',
    );
    expect(JSON.stringify(res.body)).toContain('"Connection"');
  });
});

describe('a non-discovery preset', () => {
  it('github: endpoint overrides, client_secret_post, identity from its user API', async () => {
    const { server, provider, org } = world;
    const saved = await registerIntegration(world, org.id, {
      presetKey: 'github',
      issuer: undefined,
      clientId: POST_CLIENT_ID,
      // The override endpoints stand in for GitHub Enterprise; `github` is the provider's GitHub-like scope.
      authorizationEndpoint: `${provider.issuer}/auth`,
      tokenEndpoint: `${provider.issuer}/token`,
      userinfoEndpoint: `${provider.issuer}/me`,
      scopes: ['openid', 'github'],
    });
    expect(saved.version.number).toBe(1);
    const started = await startFlow(world, org.ownerKey, { returnTo: '/gh' }, 'github');
    expect(started.location.searchParams.get('redirect_uri')).toBe(`${server.url}/api/oauth/callback/github`);
    expect(started.location.searchParams.get('scope')).toBe('openid github');
    const redirect = await approveAtProvider(world, started, { login: 'octocat' });
    const { params } = outcomeOf(await callback(world, redirect, org.ownerKey, started.cookie));
    expect(params).toMatchObject({ oauth_status: 'success', preset: 'github' });
    const list = await server.request<{ data: { connections: Array<Record<string, unknown>> } }>(
      'GET',
      `/api/v1/projects/${world.projectId}/environments/${world.environmentId}/connections`,
      { key: org.ownerKey },
    );
    expect(list.body.data.connections.find((c) => c.presetKey === 'github')).toMatchObject({
      id: params.connection_id,
      accountId: '4242',
      accountLabel: 'octocat-gh',
      scopes: ['openid', 'github'],
      status: 'active',
    });
    // Refresh uses the same client authentication.
    world.clock.advance(58 * 60_000);
    const before = world.provider.tokenRequests.count;
    await server.context.connectionTokens.getAccessToken(params.connection_id!);
    expect(world.provider.tokenRequests.count - before).toBe(1);
  });
});
