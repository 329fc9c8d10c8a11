import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { ApiError } from '../../src/http/errors.js';
import { generateKeyEntry, parseKeyRing } from '../../src/lib/key-ring.js';
import { connectionAad, connections, integrationVersions } from '../../src/modules/oauth/index.js';
import { runCli } from '../support/cli-harness.js';
import { onPostgres } from '../support/database.js';
import { ADMIN_TOKEN, startServer, type TestServer } from '../support/server.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  connect,
  type OAuthWorld,
  registerIntegration,
  startOAuthWorld,
} from './harness.js';

let world: OAuthWorld;
const extra: Array<{ server: TestServer; database?: Database }> = [];

beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(async () => {
  for (const { server, database } of extra) {
    await server.close();
    await database?.close();
  }
  await world.close();
});

/** Another Cadre instance on the same database (its own pool on PostgreSQL), with its own in-process state. */
async function secondInstance(keyRing = world.keyRing): Promise<TestServer> {
  const database = onPostgres() ? await world.server.db.reopen() : world.server.db.database;
  const server = await startServer({
    database,
    clock: world.clock,
    keyRing,
    oauthHttp: { allowInsecureRequests: true, timeoutMs: 5_000 },
  });
  extra.push({ server, ...(onPostgres() ? { database } : {}) });
  return server;
}

const db = () => world.server.context.database.db;
const rowOf = async (id: string) =>
  (await world.server.context.database.db.select().from(connections).where(eq(connections.id, id)))[0]!;

describe('access tokens and refresh', () => {
  it('returns the stored token while it is valid for more than five minutes, without asking the provider', async () => {
    const { params } = await connect(world, world.org.ownerKey);
    const requests = world.provider.tokenRequests.count;
    const first = await world.server.context.connectionTokens.getAccessToken(params.connection_id!);
    world.clock.advance(54 * 60_000);
    const second = await world.server.context.connectionTokens.getAccessToken(params.connection_id!);
    expect(second.accessToken).toBe(first.accessToken);
    expect(world.provider.tokenRequests.count).toBe(requests);
  });

  it('20 concurrent callers on two instances trigger exactly one refresh request and share its token', async () => {
    const { params } = await connect(world, world.org.ownerKey);
    const other = await secondInstance();
    world.clock.advance(58 * 60_000);
    const before = world.provider.tokenRequests.count;
    const grantsBefore = world.provider.tokenRequests.grantTypes.length;
    const tokens = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 === 0 ? world.server : other).context.connectionTokens.getAccessToken(
          params.connection_id!,
        ),
      ),
    );
    expect(world.provider.tokenRequests.count - before).toBe(1);
    expect(world.provider.tokenRequests.grantTypes.slice(grantsBefore)).toEqual(['refresh_token']);
    expect(new Set(tokens.map((token) => token.accessToken)).size).toBe(1);
    const row = await rowOf(params.connection_id!);
    expect(row.status).toBe('active');
    expect(row.expiresAt!.getTime()).toBe(world.clock.now().getTime() + 3600_000);
  });

  it('a failed refresh marks the connection needs_reauth with the error, backs off, and recovers', async () => {
    const { params } = await connect(world, world.org.ownerKey, {});
    const id = params.connection_id!;
    world.clock.advance(59 * 60_000);
    world.provider.tokenEndpointDown = true;
    const before = world.provider.tokenRequests.count;
    try {
      const failure = await world.server.context.connectionTokens
        .getAccessToken(id)
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ApiError);
      expect((failure as ApiError).code).toBe('conflict');
      expect((failure as ApiError).headers?.['Retry-After']).toBe('30');
      let row = await rowOf(id);
      expect(row).toMatchObject({ status: 'needs_reauth', refreshFailures: 1 });
      expect(row.lastError).toMatch(/^invalid_response: /);
      expect(row.nextRefreshAt!.getTime()).toBe(world.clock.now().getTime() + 30_000);

      // Inside the backoff the provider is left alone.
      await expect(world.server.context.connectionTokens.getAccessToken(id)).rejects.toThrow(
        /re-authorization/,
      );
      expect(world.provider.tokenRequests.count - before).toBe(1);

      // The next attempt fails too: the backoff doubles.
      world.clock.advance(30_000);
      await expect(world.server.context.connectionTokens.getAccessToken(id)).rejects.toThrow(
        /re-authorization/,
      );
      row = await rowOf(id);
      expect(row.refreshFailures).toBe(2);
      expect(row.nextRefreshAt!.getTime()).toBe(world.clock.now().getTime() + 60_000);
    } finally {
      world.provider.tokenEndpointDown = false;
    }
    // The connections list shows the state.
    const list = await world.server.request<{ data: { connections: Array<{ id: string; status: string }> } }>(
      'GET',
      `/api/v1/projects/${world.projectId}/environments/${world.environmentId}/connections`,
      { key: world.org.ownerKey },
    );
    expect(list.body.data.connections.find((c) => c.id === id)?.status).toBe('needs_reauth');

    world.clock.advance(60_000);
    const token = await world.server.context.connectionTokens.getAccessToken(id);
    expect(token.accessToken).toBeTruthy();
    expect(await rowOf(id)).toMatchObject({
      status: 'active',
      refreshFailures: 0,
      lastError: null,
      nextRefreshAt: null,
    });
  });

  it('a refresh token the provider revoked: needs_reauth with the provider error invalid_grant', async () => {
    const { params } = await connect(world, world.org.ownerKey);
    const row = await rowOf(params.connection_id!);
    const refreshToken = world.keyRing.decrypt(
      row.refreshTokenCiphertext!,
      connectionAad(row, 'refresh_token'),
    );
    const revoked = await fetch(`${world.provider.issuer}/token/revocation`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: refreshToken, token_type_hint: 'refresh_token' }),
    });
    expect(revoked.status).toBe(200);
    world.clock.advance(57 * 60_000);
    await expect(world.server.context.connectionTokens.getAccessToken(row.id)).rejects.toThrow(
      /needs re-authorization: invalid_grant/,
    );
    expect(await rowOf(row.id)).toMatchObject({ status: 'needs_reauth', refreshFailures: 1 });
    expect((await rowOf(row.id)).lastError).toMatch(/^invalid_grant: /);
  });

  it('a successful new authorization clears needs_reauth', async () => {
    const { params } = await connect(world, world.org.ownerKey);
    await world.server.context.database.db
      .update(connections)
      .set({ status: 'needs_reauth', lastError: 'invalid_grant: revoked', refreshFailures: 3 })
      .where(eq(connections.id, params.connection_id!));
    const again = await connect(world, world.org.ownerKey);
    expect(again.params.connection_id).toBe(params.connection_id);
    expect(await rowOf(params.connection_id!)).toMatchObject({
      status: 'active',
      lastError: null,
      refreshFailures: 0,
    });
  });

  it('answers 404 for an unknown connection', async () => {
    await expect(world.server.context.connectionTokens.getAccessToken('x'.repeat(24))).rejects.toThrow(
      /not found/,
    );
  });
});

describe('tokens are bound to their connection', () => {
  it('a token ciphertext copied into another connection row does not decrypt', async () => {
    const a = await connect(world, world.org.ownerKey);
    const started = await connect(world, world.org.ownerKey, {});
    expect(started.params.connection_id).toBe(a.params.connection_id);
    // A second connection, in the other environment.
    const { startFlow, approveAtProvider, callback, outcomeOf } = await import('./harness.js');
    const flow = await startFlow(world, world.org.ownerKey, { environmentId: world.otherEnvironmentId });
    const redirect = await approveAtProvider(world, flow);
    const b = outcomeOf(await callback(world, redirect, world.org.ownerKey, flow.cookie));
    expect(b.params.oauth_status).toBe('success');
    const rowA = await rowOf(a.params.connection_id!);
    await world.server.context.database.db
      .update(connections)
      .set({
        accessTokenCiphertext: rowA.accessTokenCiphertext,
        expiresAt: new Date(world.clock.now().getTime() + 3600_000),
      })
      .where(eq(connections.id, b.params.connection_id!));
    await expect(
      world.server.context.connectionTokens.getAccessToken(b.params.connection_id!),
    ).rejects.toThrow(/does not authenticate/);
    // Swapping the access and refresh token fields of one row fails as well.
    await world.server.context.database.db
      .update(connections)
      .set({ accessTokenCiphertext: rowA.refreshTokenCiphertext! })
      .where(eq(connections.id, a.params.connection_id!));
    await expect(
      world.server.context.connectionTokens.getAccessToken(a.params.connection_id!),
    ).rejects.toThrow(/does not authenticate/);
    // Repair: remove both damaged rows (the next tests authorize again).
    await db().delete(connections);
  });
});

describe('reencryptAll (cadre admin rotate-encryption-key)', () => {
  it('moves every secret to the newest key, resumably, and old keys can then be dropped', async () => {
    await registerIntegration(world, world.org.id);
    const { params } = await connect(world, world.org.ownerKey);
    const { startFlow, approveAtProvider, callback, outcomeOf } = await import('./harness.js');
    const flow = await startFlow(world, world.org.ownerKey, { environmentId: world.otherEnvironmentId });
    const damaged = outcomeOf(
      await callback(world, await approveAtProvider(world, flow), world.org.ownerKey, flow.cookie),
    ).params.connection_id!;
    // One damaged row (a ciphertext copied from another row) must not block the rotation.
    await db()
      .update(connections)
      .set({ accessTokenCiphertext: (await rowOf(params.connection_id!)).accessTokenCiphertext })
      .where(eq(connections.id, damaged));
    const k2 = generateKeyEntry('k2');
    const rotated = await secondInstance(parseKeyRing(`${k2},${world.keyEntry}`));

    const versions = await db().select().from(integrationVersions);
    const connectionRows = await db().select().from(connections);
    expect(versions.length).toBeGreaterThan(1);
    expect(connectionRows).toHaveLength(2);

    // An interrupted run (bounded to one row) leaves a mix that the rotated ring still reads entirely.
    const partial = await rotated.context.reencryptAll({ maxRows: 1, batchSize: 1 });
    expect(partial).toEqual({
      integrationVersions: 1,
      connections: 0,
      webhookEndpoints: 0,
      ssoProviders: 0,
      unreadable: [],
      done: false,
    });
    const mixed = await db().select().from(integrationVersions);
    expect(mixed.filter((v) => v.clientSecretCiphertext.startsWith('v1.k2.'))).toHaveLength(1);
    for (const version of mixed)
      expect(rotated.context.integrations.clientSecret(version)).toBe('the-right-client-secret');

    // Running again continues where it stopped.
    const rest = await rotated.context.reencryptAll({ batchSize: 2 });
    expect(rest).toEqual({
      integrationVersions: versions.length - 1,
      connections: 1,
      webhookEndpoints: 0,
      ssoProviders: 0,
      unreadable: [damaged],
      done: false,
    });
    await db().delete(connections).where(eq(connections.id, damaged));
    expect(await rotated.context.reencryptAll()).toEqual({
      integrationVersions: 0,
      connections: 0,
      webhookEndpoints: 0,
      ssoProviders: 0,
      unreadable: [],
      done: true,
    });
    for (const row of await db().select().from(connections)) {
      expect(row.accessTokenCiphertext).toMatch(/^v1\.k2\./);
      if (row.refreshTokenCiphertext) expect(row.refreshTokenCiphertext).toMatch(/^v1\.k2\./);
    }

    // A ring holding only the new key reads everything; the old ring alone no longer can.
    const newOnly = await secondInstance(parseKeyRing(k2));
    const token = await newOnly.context.connectionTokens.getAccessToken(params.connection_id!);
    expect(token.accessToken).toBeTruthy();
    for (const version of await db().select().from(integrationVersions)) {
      expect(newOnly.context.integrations.clientSecret(version)).toBe('the-right-client-secret');
      expect(() => world.server.context.integrations.clientSecret(version)).toThrow(/no key k2/);
    }
    // The refresh path works under the new key too.
    world.clock.advance(58 * 60_000);
    const refreshed = await newOnly.context.connectionTokens.getAccessToken(params.connection_id!);
    expect(refreshed.accessToken).not.toBe(token.accessToken);
  });

  it('cadre admin rotate-encryption-key re-encrypts everything readable through the admin API', async () => {
    await registerIntegration(world, world.org.id);
    await connect(world, world.org.ownerKey);
    const k3 = generateKeyEntry('k3');
    const rotated = await secondInstance(parseKeyRing(`${k3},${world.keyEntry}`));
    const run = await runCli(['admin', 'rotate-encryption-key'], {
      cwd: process.cwd(),
      env: { CADRE_URL: rotated.url, CADRE_ADMIN_TOKEN: ADMIN_TOKEN },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /re-encrypted \d+ client secret\(s\), \d+ connection\(s\), \d+ webhook secret\(s\) and \d+ identity provider secret\(s\)/,
    );
    // Rows the earlier test left under k2 (not in this ring) are reported; everything readable moved to k3.
    const reported =
      /skipped \(no key of the ring opens them\): (.*)/.exec(run.stdout)?.[1]?.split(', ') ?? [];
    const unreadable = new Set(reported);
    for (const row of await db().select().from(connections)) {
      if (!unreadable.has(row.id)) expect(row.accessTokenCiphertext).toMatch(/^v1\.k3\./);
    }
    for (const version of await db().select().from(integrationVersions)) {
      if (!unreadable.has(version.id)) expect(version.clientSecretCiphertext).toMatch(/^v1\.k3\./);
    }
    expect(
      [...(await db().select().from(connections))].some((row) =>
        row.accessTokenCiphertext.startsWith('v1.k3.'),
      ),
    ).toBe(true);
  });
});
