import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connections } from '../../src/modules/oauth/index.js';
import { expectApiError } from '../support/assertions.js';
import { addMember, createKey, createOrganization, createProject } from '../support/fixtures.js';
import {
  ALLOWED_ORIGIN,
  approveAtProvider,
  callback,
  connect,
  type OAuthWorld,
  outcomeOf,
  registerIntegration,
  startFlow,
  startOAuthWorld,
} from './harness.js';

let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(() => world.close());

const connectionCount = async () =>
  (
    await world.server.context.database.db
      .select()
      .from(connections)
      .where(eq(connections.organizationId, world.org.id))
  ).length;

const startPath = (query: Record<string, string>, presetKey = 'oidc') =>
  `/api/oauth/start/${presetKey}?${new URLSearchParams({
    projectId: world.projectId,
    environmentId: world.environmentId,
    ...query,
  })}`;

describe('callback failures: every outcome is a redirect that says what happened', () => {
  it('the user cancels at the provider: access_denied with its description, nothing stored', async () => {
    const before = await connectionCount();
    const started = await startFlow(world, world.org.ownerKey, { returnTo: '/back' });
    const redirect = await approveAtProvider(world, started, { cancel: true });
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    const { location, params } = outcomeOf(
      await callback(world, redirect, world.org.ownerKey, started.cookie),
    );
    expect(location.pathname).toBe('/back');
    expect(params).toEqual({
      oauth_status: 'error',
      oauth_error: 'access_denied',
      oauth_error_description: 'End-User aborted interaction',
    });
    expect(await connectionCount()).toBe(before);
  });

  it('a state that does not match the cookie: invalid_state, and the code is never exchanged', async () => {
    const started = await startFlow(world, world.org.ownerKey, { returnTo: '/back' });
    const redirect = await approveAtProvider(world, started);
    const tokenRequests = world.provider.tokenRequests.count;
    const forged = new URL(redirect);
    forged.searchParams.set('state', 'x'.repeat(43));
    const res = await callback(world, forged, world.org.ownerKey, started.cookie);
    expect(outcomeOf(res).params).toMatchObject({ oauth_status: 'error', oauth_error: 'invalid_state' });
    expect(res.headers.get('set-cookie')).toMatch(/^cadre_oauth_state=; Max-Age=0;/);
    // A callback without any state parameter is the same.
    const stateless = new URL(redirect);
    stateless.searchParams.delete('state');
    const res2 = await callback(world, stateless, world.org.ownerKey, started.cookie);
    expect(outcomeOf(res2).params).toMatchObject({ oauth_error: 'invalid_state' });
    expect(world.provider.tokenRequests.count).toBe(tokenRequests);
  });

  it('a missing state cookie: 302 to the console root with invalid_state', async () => {
    const started = await startFlow(world, world.org.ownerKey, { returnTo: '/back' });
    const redirect = await approveAtProvider(world, started);
    const { location, params } = outcomeOf(await callback(world, redirect, world.org.ownerKey));
    expect(`${location.origin}${location.pathname}`).toBe(`${world.server.url}/`);
    expect(params).toEqual({ oauth_status: 'error', oauth_error: 'invalid_state' });
  });

  it('a tampered state cookie: 302 to the console root with invalid_state', async () => {
    const started = await startFlow(world, world.org.ownerKey, { returnTo: '/back' });
    const redirect = await approveAtProvider(world, started);
    const [name, value] = started.cookie.split('=') as [string, string];
    const parts = value.split('.');
    // Flip one character of the ciphertext, then of the authentication tag.
    for (const index of [3, 4]) {
      const tampered = [...parts];
      const part = tampered[index]!;
      tampered[index] = (part[0] === 'A' ? 'B' : 'A') + part.slice(1);
      const res = await callback(world, redirect, world.org.ownerKey, `${name}=${tampered.join('.')}`);
      const { location, params } = outcomeOf(res);
      expect(location.pathname).toBe('/');
      expect(params).toEqual({ oauth_status: 'error', oauth_error: 'invalid_state' });
    }
    // Garbage and a cookie for another preset's callback are no better.
    const garbage = outcomeOf(
      await callback(world, redirect, world.org.ownerKey, 'cadre_oauth_state=not-a-jwe'),
    );
    expect(garbage.params.oauth_error).toBe('invalid_state');
    const otherPreset = new URL(redirect);
    otherPreset.pathname = '/api/oauth/callback/github';
    const wrongPreset = outcomeOf(await callback(world, otherPreset, world.org.ownerKey, started.cookie));
    expect(wrongPreset.location.pathname).toBe('/');
    expect(wrongPreset.params.oauth_error).toBe('invalid_state');
    // The untouched cookie still works: nothing above consumed the state.
    const ok = outcomeOf(await callback(world, redirect, world.org.ownerKey, started.cookie));
    expect(ok.params.oauth_status).toBe('success');
  });

  it('a replayed callback: invalid_state, and the provider is not asked again', async () => {
    const first = await connect(world, world.org.ownerKey, { returnTo: '/back' });
    expect(first.params.oauth_status).toBe('success');
    const tokenRequests = world.provider.tokenRequests.count;
    const replay = outcomeOf(await callback(world, first.redirect, world.org.ownerKey, first.started.cookie));
    expect(replay.location.pathname).toBe('/back');
    expect(replay.params).toMatchObject({ oauth_status: 'error', oauth_error: 'invalid_state' });
    expect(world.provider.tokenRequests.count).toBe(tokenRequests);
  });

  it('concurrent replays of one callback: exactly one succeeds', async () => {
    const started = await startFlow(world, world.org.ownerKey, { returnTo: '/back' });
    const redirect = await approveAtProvider(world, started);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => callback(world, redirect, world.org.ownerKey, started.cookie)),
    );
    const statuses = results.map((res) => outcomeOf(res).params.oauth_status).sort();
    expect(statuses).toEqual(['error', 'error', 'error', 'error', 'success']);
  });

  it('an expired state (over ten minutes, by the service clock): state_expired', async () => {
    const started = await startFlow(world, world.org.ownerKey, { returnTo: '/back' });
    const redirect = await approveAtProvider(world, started);
    world.clock.advance(600_000);
    const { location, params } = outcomeOf(
      await callback(world, redirect, world.org.ownerKey, started.cookie),
    );
    expect(location.pathname).toBe('/back');
    expect(params).toMatchObject({ oauth_status: 'error', oauth_error: 'state_expired' });
  });

  it('permission removed between start and callback: forbidden, before any code exchange', async () => {
    const userId = await addMember(world.server, world.org, 'member');
    const operator = await createKey(world.server, world.org, userId, {
      type: 'environment',
      environmentIds: [world.environmentId],
      permissions: ['projects:operate'],
    });
    // The same user's credential at callback time no longer carries projects:operate on that environment.
    const reader = await createKey(world.server, world.org, userId, {
      type: 'environment',
      environmentIds: [world.otherEnvironmentId],
      permissions: ['projects:operate'],
    });
    const started = await startFlow(world, operator.key, { returnTo: '/back' });
    const redirect = await approveAtProvider(world, started);
    const tokenRequests = world.provider.tokenRequests.count;
    const { params } = outcomeOf(await callback(world, redirect, reader.key, started.cookie));
    expect(params).toMatchObject({ oauth_status: 'error', oauth_error: 'forbidden' });
    expect(world.provider.tokenRequests.count).toBe(tokenRequests);
  });

  it('the operator key revoked between start and callback: 401', async () => {
    const operator = await createKey(world.server, world.org, world.org.ownerId);
    const started = await startFlow(world, operator.key);
    const redirect = await approveAtProvider(world, started);
    const revoked = await world.server.request('DELETE', `/api/v1/api-keys/${operator.id}`, {
      key: world.org.ownerKey,
    });
    expect(revoked.status).toBe(200);
    expectApiError(await callback(world, redirect, operator.key, started.cookie), 401, 'unauthorized');
  });

  it('a callback by another user of the organization: forbidden', async () => {
    const userId = await addMember(world.server, world.org, 'admin');
    const other = await createKey(world.server, world.org, userId);
    const started = await startFlow(world, world.org.ownerKey);
    const redirect = await approveAtProvider(world, started);
    const { params } = outcomeOf(await callback(world, redirect, other.key, started.cookie));
    expect(params).toMatchObject({ oauth_status: 'error', oauth_error: 'forbidden' });
  });

  it('the integration changes between start and callback: the pinned version completes the flow', async () => {
    const started = await startFlow(world, world.org.ownerKey);
    const pinned = started.location.searchParams.get('client_id');
    // A new version with a wrong secret: a flow that used it could not exchange its code.
    const v2 = await registerIntegration(world, world.org.id, { clientSecret: 'a-wrong-secret' });
    const redirect = await approveAtProvider(world, started);
    const done = outcomeOf(await callback(world, redirect, world.org.ownerKey, started.cookie));
    expect(done.params.oauth_status).toBe('success');
    const [row] = await world.server.context.database.db
      .select()
      .from(connections)
      .where(eq(connections.id, done.params.connection_id!));
    expect(row!.integrationVersionId).not.toBe(v2.version.id);
    expect(pinned).toBe(started.location.searchParams.get('client_id'));

    // A flow started now pins v2, whose wrong client secret the provider refuses: exchange_failed.
    const failing = await connect(world, world.org.ownerKey, { returnTo: '/back' });
    expect(failing.params).toMatchObject({ oauth_status: 'error', oauth_error: 'exchange_failed' });
    expect(failing.params.oauth_error_description).toMatch(/^invalid_client/);
    await registerIntegration(world, world.org.id);
  });

  it('the token endpoint is down: exchange_failed, and the state stays consumed', async () => {
    const started = await startFlow(world, world.org.ownerKey, { returnTo: '/back' });
    const redirect = await approveAtProvider(world, started);
    world.provider.tokenEndpointDown = true;
    try {
      const { params } = outcomeOf(await callback(world, redirect, world.org.ownerKey, started.cookie));
      expect(params).toMatchObject({ oauth_status: 'error', oauth_error: 'exchange_failed' });
    } finally {
      world.provider.tokenEndpointDown = false;
    }
    const retry = outcomeOf(await callback(world, redirect, world.org.ownerKey, started.cookie));
    expect(retry.params.oauth_error).toBe('invalid_state');
  });

  it('a callback without credentials: 401 (and with an invalid key: 401)', async () => {
    const started = await startFlow(world, world.org.ownerKey);
    const redirect = await approveAtProvider(world, started);
    expectApiError(await callback(world, redirect, undefined, started.cookie), 401, 'unauthorized');
    expectApiError(
      await callback(world, redirect, 'cadre_notavalidkey', started.cookie),
      401,
      'unauthorized',
    );
  });
});

describe('start: checks before anything leaves for the provider', () => {
  it('answers 401 without credentials or with an invalid key', async () => {
    expectApiError(await world.server.request('GET', startPath({})), 401, 'unauthorized');
    expectApiError(
      await world.server.request('GET', startPath({}), { key: 'cadre_nope' }),
      401,
      'unauthorized',
    );
  });

  it('answers 403 to a key of the organization without projects:operate on that environment', async () => {
    const userId = await addMember(world.server, world.org, 'member');
    const elsewhere = await createKey(world.server, world.org, userId, {
      type: 'environment',
      environmentIds: [world.otherEnvironmentId],
      permissions: ['projects:operate'],
    });
    expectApiError(
      await world.server.request('GET', startPath({}), { key: elsewhere.key }),
      403,
      'forbidden',
    );
    const noPermission = await createKey(world.server, world.org, userId, {
      type: 'organization',
      permissions: ['api-keys:read'],
    });
    expectApiError(
      await world.server.request('GET', startPath({}), { key: noPermission.key }),
      403,
      'forbidden',
    );
    // A project-scoped key of a member works.
    const projectKey = await createKey(world.server, world.org, userId, {
      type: 'project',
      projectIds: [world.projectId],
      permissions: ['projects:operate'],
    });
    expect((await world.server.request('GET', startPath({}), { key: projectKey.key })).status).toBe(302);
  });

  it("answers 404 for another organization's project, an unknown environment or a mismatched pair", async () => {
    const other = await createOrganization(world.server, 'team');
    const { project, environments } = await createProject(world.server, other);
    const foreign = { projectId: project.id, environmentId: environments[0]!.id };
    expectApiError(
      await world.server.request('GET', startPath(foreign), { key: world.org.ownerKey }),
      404,
      'not_found',
    );
    expectApiError(
      await world.server.request('GET', startPath({ environmentId: 'x'.repeat(24) }), {
        key: world.org.ownerKey,
      }),
      404,
      'not_found',
    );
    const ownOther = await createProject(world.server, world.org);
    expectApiError(
      await world.server.request('GET', startPath({ projectId: ownOther.project.id }), {
        key: world.org.ownerKey,
      }),
      404,
      'not_found',
    );
    // The other organization's owner cannot use this organization's project either.
    expectApiError(
      await world.server.request('GET', startPath({}), { key: other.ownerKey }),
      404,
      'not_found',
    );
  });

  it('answers 404 for an unknown preset and 422 without projectId', async () => {
    expectApiError(
      await world.server.request('GET', startPath({}, 'myspace'), { key: world.org.ownerKey }),
      404,
      'not_found',
    );
    const res = await world.server.request(
      'GET',
      `/api/oauth/start/oidc?environmentId=${world.environmentId}`,
      {
        key: world.org.ownerKey,
      },
    );
    expectApiError(res, 422, 'validation_failed');
  });

  it('answers 409 when the organization has no integration for the preset, or an unverified one', async () => {
    const other = await createOrganization(world.server, 'team');
    const { project, environments } = await createProject(world.server, other);
    const path = (preset: string) =>
      `/api/oauth/start/${preset}?projectId=${project.id}&environmentId=${environments[0]!.id}`;
    expectApiError(await world.server.request('GET', path('oidc'), { key: other.ownerKey }), 409, 'conflict');
    await registerIntegration(world, other.slug, { verified: false });
    const res = await world.server.request('GET', path('oidc'), { key: other.ownerKey });
    expectApiError(res, 409, 'conflict');
    expect(res.text).toContain('not verified');
    await registerIntegration(world, other.slug, { verified: true });
    expect((await world.server.request('GET', path('oidc'), { key: other.ownerKey })).status).toBe(302);
    expectApiError(
      await world.server.request('GET', path('github'), { key: other.ownerKey }),
      409,
      'conflict',
    );
  });

  it.each([
    '//evil.test',
    '//evil.test/path',
    '/\\evil.test',
    '\\\\evil.test',
    '/\t/evil.test',
    'https://evil.test',
    'https://evil.test/callback',
    'http://app.example.test',
    `${ALLOWED_ORIGIN}.evil.test/`,
    `${ALLOWED_ORIGIN}@evil.test/`,
    'https://user:pass@app.example.test/',
    'https:evil.test',
    'https:/evil.test',
    'javascript:alert(1)',
    'JavaScript:alert(document.cookie)',
    ' javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    '%2F%2Fevil.test',
    '%252F%252Fevil.test',
    '/..//evil.test',
    'evil.test',
    '.evil.test',
  ])('refuses returnTo %j with 422', async (returnTo) => {
    const res = await world.server.request('GET', startPath({ returnTo }), { key: world.org.ownerKey });
    expectApiError(res, 422, 'validation_failed');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a percent-encoded //evil.test sent raw in the query string (decoded once by the server)', async () => {
    const base = startPath({});
    for (const encoded of [
      '%2F%2Fevil.test',
      '%2f%5cevil.test',
      'javascript%3Aalert(1)',
      '%2F%2F%65vil.test',
    ]) {
      const res = await world.server.request('GET', `${base}&returnTo=${encoded}`, {
        key: world.org.ownerKey,
      });
      expectApiError(res, 422, 'validation_failed');
    }
  });

  it('accepts relative paths, the console origin and listed origins', async () => {
    for (const [returnTo, expected] of [
      ['/settings?x=1#frag', `${world.server.url}/settings?x=1#frag`],
      ['/%2F%2Fevil.test', `${world.server.url}/%2F%2Fevil.test`],
      [`${ALLOWED_ORIGIN}/oauth/done`, `${ALLOWED_ORIGIN}/oauth/done`],
      [`${world.server.url}/done`, `${world.server.url}/done`],
    ] as const) {
      const started = await startFlow(world, world.org.ownerKey, { returnTo });
      const redirect = await approveAtProvider(world, started, { cancel: true });
      const { location } = outcomeOf(await callback(world, redirect, world.org.ownerKey, started.cookie));
      location.searchParams.delete('oauth_status');
      location.searchParams.delete('oauth_error');
      location.searchParams.delete('oauth_error_description');
      expect(location.href.replace('?#', '#').replace(/\?$/, '')).toBe(expected);
    }
  });
});

describe('connections list', () => {
  const listPath = () =>
    `/api/v1/projects/${world.projectId}/environments/${world.environmentId}/connections`;

  it('answers 401, 403 and 404 as the other management endpoints do', async () => {
    expectApiError(await world.server.request('GET', listPath()), 401, 'unauthorized');
    const userId = await addMember(world.server, world.org, 'member');
    const noPermission = await createKey(world.server, world.org, userId, {
      type: 'organization',
      permissions: ['api-keys:read'],
    });
    expectApiError(
      await world.server.request('GET', listPath(), { key: noPermission.key }),
      403,
      'forbidden',
    );
    const other = await createOrganization(world.server, 'team');
    expectApiError(await world.server.request('GET', listPath(), { key: other.ownerKey }), 404, 'not_found');
  });

  it('answers an empty list for an environment without connections', async () => {
    const res = await world.server.request(
      'GET',
      `/api/v1/projects/${world.projectId}/environments/${world.otherEnvironmentId}/connections`,
      { key: world.org.ownerKey },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { connections: [] } });
  });
});
