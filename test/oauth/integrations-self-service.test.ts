import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/modules/audit/audit.tables.js';
import { clientSecretAad, connections, integrationVersions } from '../../src/modules/oauth/index.js';
import { expectApiError } from '../support/assertions.js';
import {
  addMember,
  createKey,
  createOrganization,
  createProject,
  type TestOrganization,
} from '../support/fixtures.js';
import type { HttpResult } from '../support/http.js';
import {
  approveAtProvider,
  CLIENT_ID,
  CLIENT_SECRET,
  callback,
  connect,
  type OAuthWorld,
  outcomeOf,
  registerIntegration,
  type Started,
  startFlow,
  startOAuthWorld,
} from './harness.js';

type Integration = {
  id: string;
  presetKey: string;
  version: { id: string; number: number; clientId: string; verified: boolean; scopes: string[] };
};

let world: OAuthWorld;
let org: TestOrganization;
let projectId: string;
let environmentId: string;
/** Every answer of this file, to check that no client secret ever appears in one. */
const answers: HttpResult[] = [];
const WRONG_SECRET = 'a-rotated-but-wrong-secret';

beforeAll(async () => {
  world = await startOAuthWorld();
  org = await createOrganization(world.server, 'team');
  const made = await createProject(world.server, org);
  projectId = made.project.id;
  environmentId = made.environments[0]!.id;
});
afterAll(() => world.close());

async function call<T = Record<string, unknown>>(method: string, path: string, key: string, body?: unknown) {
  const res = await world.server.request<T>(method, path, { key, ...(body === undefined ? {} : { body }) });
  answers.push(res as HttpResult);
  return res;
}

const integrationsPath = (o = org) => `/api/v1/organizations/${o.slug}/integrations`;
const registration = () => ({
  presetKey: 'oidc',
  issuer: world.provider.issuer,
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
});

async function listed(o = org): Promise<Integration[]> {
  const res = await call<{ data: Integration[] }>('GET', integrationsPath(o), o.ownerKey);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** Starts a verification with `key` and, unless told otherwise, signs in and consents at the provider. */
async function verify(key: string, options: { callbackKey?: string } = {}) {
  const res = await call('GET', '/api/oauth/verify/oidc?returnTo=/settings/integrations', key);
  expect(res.status, res.text).toBe(302);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const started: Started = {
    res,
    location: new URL(res.headers.get('location')!),
    cookie: setCookie.split(';')[0]!,
    setCookie,
  };
  const redirect = await approveAtProvider(world, started);
  const done = await callback(world, redirect, options.callbackKey ?? key, started.cookie);
  answers.push(done);
  return { started, ...outcomeOf(done) };
}

const startConnect = (key: string) =>
  call('GET', `/api/oauth/start/oidc?${new URLSearchParams({ projectId, environmentId })}`, key);

describe('integrations, self-service', () => {
  it('the preset catalogue names each provider as people know it, with the redirect URI to register', async () => {
    const res = await call<{
      data: Array<{ key: string; name: string; issuerRequired: boolean; redirectUri: string }>;
    }>('GET', '/api/v1/oauth/presets', org.ownerKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.find((p) => p.key === 'github')).toMatchObject({
      name: 'GitHub',
      issuerRequired: false,
      redirectUri: `${world.server.url}/api/oauth/callback/github`,
    });
    expect(res.body.data.find((p) => p.key === 'oidc')).toMatchObject({ issuerRequired: true });
    expect(res.body.data.find((p) => p.key === 'google')).toMatchObject({
      name: 'Google',
      issuerRequired: false,
    });
  });

  it('the owner registers one (unverified, secret write-only); a second registration is 409; flows wait for verification', async () => {
    const res = await call<{ data: Integration }>('POST', integrationsPath(), org.ownerKey, registration());
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      presetKey: 'oidc',
      presetName: 'OpenID Connect',
      version: { number: 1, clientId: CLIENT_ID, verified: false, scopes: ['openid', 'email', 'profile'] },
    });
    expect(res.text).not.toContain(CLIENT_SECRET);
    expect((await listed()).map((i) => i.version.number)).toEqual([1]);
    const twice = await call<{ error: { message: string } }>(
      'POST',
      integrationsPath(),
      org.ownerKey,
      registration(),
    );
    expectApiError(twice, 409, 'conflict');
    expect(twice.body.error.message).toBe(
      'The organization already has an integration for OpenID Connect: update or remove it',
    );
    // "verified" is not a field anyone can send here.
    expectApiError(
      await call('POST', integrationsPath(), org.ownerKey, { ...registration(), verified: true }),
      422,
      'validation_failed',
    );
    const blocked = await startConnect(org.ownerKey);
    expectApiError(blocked, 409, 'conflict');
    expect(blocked.text).toContain('not verified');
  });

  it('one successful authorization verifies it: no connection kept, tokens revoked, audited; then members connect', async () => {
    const revocations = world.provider.revocationRequests.count;
    const { started, location, params } = await verify(org.ownerKey);
    // The same redirect URI as connecting, so the provider needs one registered URI.
    expect(started.location.searchParams.get('redirect_uri')).toBe(
      `${world.server.url}/api/oauth/callback/oidc`,
    );
    expect(location.pathname).toBe('/settings/integrations');
    expect(params).toEqual({
      oauth_status: 'success',
      verified: 'true',
      preset: 'oidc',
      integration_version_id: expect.any(String),
    });
    const [integration] = await listed();
    expect(integration!.version).toMatchObject({
      number: 2,
      verified: true,
      id: params.integration_version_id,
    });
    // The test authorization's tokens are discarded: revoked at the provider, never stored.
    expect(world.provider.revocationRequests.count - revocations).toBe(2);
    const stored = await world.server.context.database.db
      .select()
      .from(connections)
      .where(eq(connections.organizationId, org.id));
    expect(stored).toEqual([]);
    const [event] = await world.server.context.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, 'integration.verified'));
    expect(event).toMatchObject({
      organizationId: org.id,
      actorUserId: org.ownerId,
      targetId: integration!.id,
      metadata: expect.objectContaining({ accountId: 'alice', versionId: params.integration_version_id }),
    });

    const memberId = await addMember(world.server, org, 'member');
    const memberKey = await createKey(world.server, org, memberId);
    const connected = await connect(world, memberKey.key, { projectId, environmentId });
    expect(connected.params.oauth_status, JSON.stringify(connected.params)).toBe('success');
  });

  it('rotating the secret is a new, unverified version; a wrong secret fails verification; the right one passes', async () => {
    const rotated = await call<{ data: Integration }>('PATCH', `${integrationsPath()}/oidc`, org.ownerKey, {
      clientSecret: WRONG_SECRET,
    });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.data.version).toMatchObject({ number: 3, verified: false, clientId: CLIENT_ID });
    expect(rotated.text).not.toContain(WRONG_SECRET);
    expectApiError(await startConnect(org.ownerKey), 409, 'conflict');

    const failed = await verify(org.ownerKey);
    expect(failed.params.oauth_status).toBe('error');
    expect(failed.params.oauth_error).toBe('exchange_failed');
    expect(failed.params.oauth_error_description).toMatch(/invalid_client/);
    expect((await listed())[0]!.version).toMatchObject({ number: 3, verified: false });

    const fixed = await call<{ data: Integration }>('PATCH', `${integrationsPath()}/oidc`, org.ownerKey, {
      clientSecret: CLIENT_SECRET,
      scopes: ['openid', 'email'],
    });
    expect(fixed.body.data.version).toMatchObject({
      number: 4,
      verified: false,
      scopes: ['openid', 'email'],
    });
    expect((await verify(org.ownerKey)).params.oauth_status).toBe('success');
    expect((await listed())[0]!.version).toMatchObject({
      number: 5,
      verified: true,
      scopes: ['openid', 'email'],
    });
    expectApiError(
      await call('PATCH', `${integrationsPath()}/github`, org.ownerKey, { clientSecret: 'x' }),
      404,
      'not_found',
    );
    expectApiError(
      await call('PATCH', `${integrationsPath()}/oidc`, org.ownerKey, {}),
      422,
      'validation_failed',
    );
  });

  it('the stored secret never follows new endpoints: changing the issuer or an endpoint needs the secret again', async () => {
    const before = (await listed())[0]!.version;
    for (const change of [
      { tokenEndpoint: 'https://attacker.example/token' },
      { issuer: 'https://attacker.example' },
      { tokenEndpointAuth: 'client_secret_post' },
    ]) {
      const res = await call<{ error: { details: Array<{ path: string }> } }>(
        'PATCH',
        `${integrationsPath()}/oidc`,
        org.ownerKey,
        change,
      );
      expectApiError(res, 422, 'validation_failed');
      expect(res.body.error.details.map((detail) => detail.path)).toEqual(['clientSecret']);
    }
    expect((await listed())[0]!.version).toEqual(before);
  });

  it('removing one that connections use is 409 naming them; cascade disconnects them and destroys the secrets', async () => {
    const existing = await world.server.context.database.db
      .select()
      .from(connections)
      .where(eq(connections.organizationId, org.id));
    expect(existing).toHaveLength(1);
    const connectionId = existing[0]!.id;
    const blocked = await call<{ error: { details: Array<{ path: string; message: string }> } }>(
      'DELETE',
      `${integrationsPath()}/oidc`,
      org.ownerKey,
    );
    expectApiError(blocked, 409, 'conflict');
    expect(blocked.body.error.details).toEqual([
      {
        path: `connections.${connectionId}`,
        // Named as people know them: the preset's name, the environment and the project by name, no ids.
        message: expect.stringMatching(
          /^OpenID Connect alice@provider\.test \(production, project “proj-[0-9a-f]+”\)$/,
        ),
      },
    ]);
    expect(await listed()).toHaveLength(1);

    const removed = await call('DELETE', `${integrationsPath()}/oidc?cascade=true`, org.ownerKey);
    expect(removed.status, removed.text).toBe(204);
    expect(await listed()).toEqual([]);
    const left = await world.server.context.database.db
      .select()
      .from(connections)
      .where(eq(connections.organizationId, org.id));
    expect(left).toEqual([]);
    expectApiError(await startConnect(org.ownerKey), 409, 'conflict');
    expectApiError(await call('DELETE', `${integrationsPath()}/oidc`, org.ownerKey), 404, 'not_found');
    // Every version's secret is gone (an empty string remains, so key rotation still reads every row).
    const versions = await world.server.context.database.db
      .select()
      .from(integrationVersions)
      .where(eq(integrationVersions.organizationId, org.id));
    expect(versions.length).toBe(5);
    for (const version of versions) {
      expect(world.keyRing.decrypt(version.clientSecretCiphertext, clientSecretAad(version.id))).toBe('');
    }
    const rotation = await world.server.context.reencryptAll();
    expect(rotation.unreadable).toEqual([]);
    const actions = (
      await world.server.context.database.db
        .select()
        .from(auditEvents)
        .where(eq(auditEvents.organizationId, org.id))
        .orderBy(auditEvents.seq)
    ).map((e) => e.action);
    expect(actions.slice(-2)).toEqual(['connection.deleted', 'integration.removed']);

    // Registering again appends to the same integration, unverified.
    const again = await call<{ data: Integration }>('POST', integrationsPath(), org.ownerKey, registration());
    expect(again.status, again.text).toBe(201);
    expect(again.body.data.version).toMatchObject({ number: 6, verified: false });
  });

  it('who may: owners and admins; a member is refused (403); another organization is 404; the callback only for who started', async () => {
    const memberId = await addMember(world.server, org, 'member');
    const memberKey = (await createKey(world.server, org, memberId)).key;
    expectApiError(await call('POST', integrationsPath(), memberKey, registration()), 403, 'forbidden');
    expectApiError(
      await call('PATCH', `${integrationsPath()}/oidc`, memberKey, { clientSecret: 'x' }),
      403,
      'forbidden',
    );
    expectApiError(await call('DELETE', `${integrationsPath()}/oidc`, memberKey), 403, 'forbidden');
    expectApiError(await call('GET', '/api/oauth/verify/oidc', memberKey), 403, 'forbidden');

    const other = await createOrganization(world.server, 'team');
    expectApiError(
      await call('POST', integrationsPath(other), org.ownerKey, registration()),
      404,
      'not_found',
    );
    expectApiError(await call('DELETE', `${integrationsPath(other)}/oidc`, org.ownerKey), 404, 'not_found');
    expect(await listed(other)).toEqual([]);

    const adminId = await addMember(world.server, org, 'admin');
    const adminKey = (await createKey(world.server, org, adminId)).key;
    // Another user completing the admin's verification is refused; the integration stays unverified.
    const stolen = await verify(adminKey, { callbackKey: org.ownerKey });
    expect(stolen.params).toMatchObject({ oauth_status: 'error', oauth_error: 'forbidden' });
    expect((await listed())[0]!.version.verified).toBe(false);
    expect((await verify(adminKey)).params.oauth_status).toBe('success');
    expect((await listed())[0]!.version.verified).toBe(true);
  });

  it('a connect flow started before the integration was removed cannot complete with it', async () => {
    const team = await createOrganization(world.server, 'team');
    const made = await createProject(world.server, team);
    // The operator's override: registered verified.
    await registerIntegration(world, team.id);
    const started = await startFlow(world, team.ownerKey, {
      projectId: made.project.id,
      environmentId: made.environments[0]!.id,
    });
    const removed = await call('DELETE', `${integrationsPath(team)}/oidc`, team.ownerKey);
    expect(removed.status, removed.text).toBe(204);
    const redirect = await approveAtProvider(world, started);
    const done = await callback(world, redirect, team.ownerKey, started.cookie);
    answers.push(done);
    expect(outcomeOf(done).params).toMatchObject({
      oauth_status: 'error',
      oauth_error: 'integration_changed',
      oauth_error_description:
        'The integration was removed during the authorization; an owner or admin can register it again.',
    });
    const stored = await world.server.context.database.db
      .select()
      .from(connections)
      .where(eq(connections.organizationId, team.id));
    expect(stored).toEqual([]);
  });

  it('no answer ever carried a client secret', () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const res of answers) {
      expect(res.text).not.toContain(CLIENT_SECRET);
      expect(res.text).not.toContain(WRONG_SECRET);
      expect(res.headers.get('location') ?? '').not.toContain(CLIENT_SECRET);
    }
  });
});
