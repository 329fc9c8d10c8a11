import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyEntry, parseKeyRing } from '../../src/lib/key-ring.js';
import { integrationVersions } from '../../src/modules/oauth/index.js';
import { expectApiError } from '../support/assertions.js';
import { createOrganization, createProject, type TestOrganization } from '../support/fixtures.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import { startServer, type TestServer } from '../support/server.js';

const keyRing = parseKeyRing(generateKeyEntry('k1'));
let server: TestServer;
let provider: TestProvider;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer({
    keyRing,
    oauthHttp: { allowInsecureRequests: true, timeoutMs: 5_000 },
  });
  provider = await startTestProvider([]);
  org = await createOrganization(server, 'team');
});
afterAll(async () => {
  await provider.close();
  await server.close();
});

const path = (organization = org.slug) => `/admin/v1/organizations/${organization}/integrations`;
type Saved = {
  data: {
    integration: Record<string, unknown> & { id: string; version: Record<string, unknown> & { id: string } };
  };
};

describe('POST /admin/v1/organizations/{org}/integrations', () => {
  it('registers an OpenID integration through discovery; the secret is encrypted and never answered', async () => {
    const res = await server.admin<Saved>('POST', path(), {
      presetKey: 'oidc',
      issuer: provider.issuer,
      clientId: 'client-1',
      clientSecret: 'super-secret-value',
      verified: true,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.integration).toEqual({
      id: expect.any(String),
      organizationId: org.id,
      presetKey: 'oidc',
      presetName: 'OpenID Connect',
      version: {
        id: expect.any(String),
        number: 1,
        clientId: 'client-1',
        scopes: ['openid', 'email', 'profile'],
        issuer: provider.issuer,
        authorizationEndpoint: `${provider.issuer}/auth`,
        tokenEndpoint: `${provider.issuer}/token`,
        userinfoEndpoint: `${provider.issuer}/me`,
        tokenEndpointAuth: 'client_secret_basic',
        verified: true,
        createdAt: expect.any(String),
      },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.text).not.toContain('super-secret-value');
    const [row] = await server.context.database.db
      .select()
      .from(integrationVersions)
      .where(eq(integrationVersions.id, res.body.data.integration.version.id));
    expect(row!.clientSecretCiphertext).toMatch(/^v1\.k1\./);
    expect(row!.clientSecretCiphertext).not.toContain('super-secret-value');
    expect(server.context.integrations.clientSecret(row!)).toBe('super-secret-value');
  });

  it('every change appends an immutable version; the list shows the current one', async () => {
    const other = await createOrganization(server, 'team');
    const body = { presetKey: 'github', clientId: 'gh-1', clientSecret: 's1', verified: false };
    const first = await server.admin<Saved>('POST', path(other.id), body);
    expect(first.status).toBe(201);
    expect(first.body.data.integration.version).toMatchObject({
      number: 1,
      authorizationEndpoint: 'https://github.com/login/oauth/authorize',
      tokenEndpoint: 'https://github.com/login/oauth/access_token',
      scopes: ['read:user'],
      verified: false,
    });
    const second = await server.admin<Saved>('POST', path(other.id), {
      ...body,
      clientSecret: 'second-secret-value',
      scopes: ['repo', 'read:user'],
      verified: true,
    });
    expect(second.body.data.integration.id).toBe(first.body.data.integration.id);
    expect(second.body.data.integration.version).toMatchObject({
      number: 2,
      scopes: ['repo', 'read:user'],
      verified: true,
    });
    const [v1] = await server.context.database.db
      .select()
      .from(integrationVersions)
      .where(eq(integrationVersions.id, first.body.data.integration.version.id));
    expect(v1).toMatchObject({ number: 1, verified: false, scopes: ['read:user'] });
    expect(server.context.integrations.clientSecret(v1!)).toBe('s1');

    const list = await server.admin<{ data: { integrations: Array<{ version: { number: number } }> } }>(
      'GET',
      path(other.id),
    );
    expect(list.status).toBe(200);
    expect(list.body.data.integrations.map((i) => i.version.number)).toEqual([2]);
    expect(list.text).not.toContain('second-secret-value');
  });

  it('numbers concurrent changes densely', async () => {
    const other = await createOrganization(server, 'team');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        server.admin<Saved>('POST', path(other.id), {
          presetKey: 'linear',
          clientId: `c${i}`,
          clientSecret: 's',
          verified: true,
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const numbers = results
      .map((r) => r.body.data.integration.version.number as number)
      .sort((a, b) => a - b);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('accepts endpoint overrides (e.g. GitHub Enterprise) and the client authentication method', async () => {
    const res = await server.admin<Saved>('POST', path(), {
      presetKey: 'github',
      clientId: 'ghe',
      clientSecret: 's',
      authorizationEndpoint: 'https://ghe.example.test/login/oauth/authorize',
      tokenEndpoint: 'https://ghe.example.test/login/oauth/access_token',
      userinfoEndpoint: 'https://ghe.example.test/api/v3/user',
      tokenEndpointAuth: 'client_secret_basic',
      verified: true,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.integration.version).toMatchObject({
      authorizationEndpoint: 'https://ghe.example.test/login/oauth/authorize',
      userinfoEndpoint: 'https://ghe.example.test/api/v3/user',
      tokenEndpointAuth: 'client_secret_basic',
    });
  });

  it('answers 422 for an unknown preset, oidc without issuer, a failing discovery or bad fields', async () => {
    const base = { clientId: 'c', clientSecret: 's', verified: true };
    expectApiError(
      await server.admin('POST', path(), { ...base, presetKey: 'myspace' }),
      422,
      'validation_failed',
    );
    expectApiError(
      await server.admin('POST', path(), { ...base, presetKey: 'oidc' }),
      422,
      'validation_failed',
    );
    const closed = await server.admin<{ error: { details: Array<{ message: string }> } }>('POST', path(), {
      ...base,
      presetKey: 'oidc',
      issuer: 'http://127.0.0.1:9/',
    });
    expectApiError(closed, 422, 'validation_failed');
    expect(closed.body.error.details[0]!.message).toMatch(/^OpenID discovery failed/);
    expectApiError(
      await server.admin('POST', path(), {
        ...base,
        presetKey: 'github',
        tokenEndpoint: 'https://u:p@x.test/t',
      }),
      422,
      'validation_failed',
    );
    expectApiError(
      await server.admin('POST', path(), { ...base, presetKey: 'github', verified: 'yes' }),
      422,
      'validation_failed',
    );
    expectApiError(
      await server.admin('POST', path(), { ...base, presetKey: 'github', extra: 1 }),
      422,
      'validation_failed',
    );
  });

  it('answers 404 for an unknown organization and 401 without the admin token', async () => {
    const body = { presetKey: 'github', clientId: 'c', clientSecret: 's', verified: true };
    expectApiError(await server.admin('POST', path('no-such-org'), body), 404, 'not_found');
    expectApiError(await server.request('POST', path(), { body }), 401, 'unauthorized');
    expectApiError(await server.request('POST', path(), { body, key: org.ownerKey }), 401, 'unauthorized');
    expectApiError(await server.request('GET', path(), { key: org.ownerKey }), 401, 'unauthorized');
  });
});

describe('public and console URLs', () => {
  it('uses CADRE_PUBLIC_URL for redirect_uri and Secure cookies, and the console URL for returnTo', async () => {
    const behindProxy = await startServer({
      database: server.context.database,
      keyRing,
      publicUrl: 'https://cadre.example.test/',
      consoleUrl: 'https://console.example.test',
      oauthHttp: { allowInsecureRequests: true },
    });
    try {
      const { project, environments } = await createProject(behindProxy, org);
      const query = `projectId=${project.id}&environmentId=${environments[0]!.id}`;
      const res = await behindProxy.request('GET', `/api/oauth/start/oidc?${query}&returnTo=/done`, {
        key: org.ownerKey,
      });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.searchParams.get('redirect_uri')).toBe(
        'https://cadre.example.test/api/oauth/callback/oidc',
      );
      expect(res.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
      // Relative returnTo is on the console; a missing cookie lands on the console root.
      const cb = await behindProxy.request('GET', '/api/oauth/callback/oidc?code=x&state=y', {
        key: org.ownerKey,
      });
      expect(cb.headers.get('location')).toBe(
        'https://console.example.test/?oauth_status=error&oauth_error=invalid_state',
      );
      expectApiError(
        await behindProxy.request(
          'GET',
          `/api/oauth/start/oidc?${query}&returnTo=${encodeURIComponent(behindProxy.url)}/x`,
          {
            key: org.ownerKey,
          },
        ),
        422,
        'validation_failed',
      );
      const toConsole = await behindProxy.request(
        'GET',
        `/api/oauth/start/oidc?${query}&returnTo=${encodeURIComponent('https://console.example.test/x')}`,
        { key: org.ownerKey },
      );
      expect(toConsole.status).toBe(302);
    } finally {
      await behindProxy.close();
    }
  });
});

describe('production safety', () => {
  it('refuses plain-http provider endpoints unless insecure requests are allowed (tests only)', async () => {
    const strict = await startServer({ keyRing: parseKeyRing(generateKeyEntry('k1')) });
    try {
      const strictOrg = await createOrganization(strict, 'team');
      const res = await strict.admin('POST', `/admin/v1/organizations/${strictOrg.id}/integrations`, {
        presetKey: 'oidc',
        issuer: provider.issuer,
        clientId: 'c',
        clientSecret: 's',
        verified: true,
      });
      expectApiError(res, 422, 'validation_failed');
    } finally {
      await strict.close();
    }
  });

  it('without an encryption key ring, OAuth answers 503 instead of storing secrets unprotected', async () => {
    const bare = await startServer();
    try {
      const bareOrg = await createOrganization(bare, 'team');
      const res = await bare.admin('POST', `/admin/v1/organizations/${bareOrg.id}/integrations`, {
        presetKey: 'github',
        clientId: 'c',
        clientSecret: 's',
        verified: true,
      });
      expectApiError(res, 503, 'service_unavailable');
      expect(res.headers.get('retry-after')).toBe('3600');
      const { project, environments } = await createProject(bare, bareOrg);
      const start = await bare.request(
        'GET',
        `/api/oauth/start/github?projectId=${project.id}&environmentId=${environments[0]!.id}`,
        { key: bareOrg.ownerKey },
      );
      // No integration can exist without a ring, so start stops at 409 before needing one.
      expectApiError(start, 409, 'conflict');
    } finally {
      await bare.close();
    }
  });
});

describe('immutability', () => {
  it('the database refuses changes to an integration version other than re-encrypting its secret', async () => {
    const res = await server.admin<Saved>('POST', path(), {
      presetKey: 'notion',
      clientId: 'n',
      clientSecret: 'notion-secret',
      verified: false,
    });
    expect(res.status, res.text).toBe(201);
    const id = res.body.data.integration.version.id;
    const db = server.context.database.db;
    await expect(
      db.update(integrationVersions).set({ verified: true }).where(eq(integrationVersions.id, id)),
    ).rejects.toThrow();
    await expect(db.delete(integrationVersions).where(eq(integrationVersions.id, id))).rejects.toThrow();
    const [row] = await db.select().from(integrationVersions).where(eq(integrationVersions.id, id));
    expect(row!.verified).toBe(false);
    const rewrapped = keyRing.encrypt('notion-secret', `cadre:integration-version:${id}:client_secret`);
    await db
      .update(integrationVersions)
      .set({ clientSecretCiphertext: rewrapped })
      .where(eq(integrationVersions.id, id));
    const [after] = await db.select().from(integrationVersions).where(eq(integrationVersions.id, id));
    expect(server.context.integrations.clientSecret(after!)).toBe('notion-secret');
  });
});
