import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connections } from '../../src/modules/oauth/index.js';
import { createOrganization, createProject, type TestOrganization } from '../support/fixtures.js';
import type { HttpResult } from '../support/http.js';
import {
  approveAtProvider,
  callback,
  type OAuthWorld,
  outcomeOf,
  registerIntegration,
  startFlow,
  startOAuthWorld,
} from './harness.js';

/**
 * What a callback does when what it connects to goes away while the provider exchanges the code: the
 * deletion happens inside the provider's token request (after the callback's first checks, before its
 * transaction), against a real oidc-provider. The callback answers its documented error, keeps nothing and
 * revokes the tokens the provider just issued.
 */
let world: OAuthWorld;
/** Every token the provider issued (its opaque value is the id it stores), in order. */
const issued: { access: string[]; refresh: string[] } = { access: [], refresh: [] };

beforeAll(async () => {
  world = await startOAuthWorld();
  world.provider.provider.on('access_token.saved', (token: { jti: string }) => issued.access.push(token.jti));
  world.provider.provider.on('refresh_token.saved', (token: { jti: string }) =>
    issued.refresh.push(token.jti),
  );
});
afterEach(() => {
  world.provider.beforeToken = undefined;
});
afterAll(() => world.close());

async function freshOrganization(): Promise<{
  org: TestOrganization;
  projectId: string;
  environmentId: string;
}> {
  const org = await createOrganization(world.server, 'team');
  await registerIntegration(world, org.id);
  const made = await createProject(world.server, org);
  return {
    org,
    projectId: made.project.id,
    environmentId: made.environments.find((e) => e.name === 'production')!.id,
  };
}

/**
 * Starts and approves a flow, then calls back while `during` runs inside the provider's token request.
 * Answers the callback's outcome, what `during` answered, and the tokens the provider issued for it.
 */
async function callbackWhile(
  target: { org: TestOrganization; projectId: string; environmentId: string },
  during: () => Promise<HttpResult>,
) {
  const started = await startFlow(world, target.org.ownerKey, {
    projectId: target.projectId,
    environmentId: target.environmentId,
  });
  const redirect = await approveAtProvider(world, started);
  let meanwhile: HttpResult | undefined;
  world.provider.beforeToken = async () => {
    world.provider.beforeToken = undefined;
    meanwhile = await during();
  };
  const accessBefore = issued.access.length;
  const refreshBefore = issued.refresh.length;
  const revocations = world.provider.revocationRequests.count;
  const res = await callback(world, redirect, target.org.ownerKey, started.cookie);
  expect(meanwhile, 'the deletion ran during the exchange').toBeDefined();
  const tokens = { access: issued.access.slice(accessBefore), refresh: issued.refresh.slice(refreshBefore) };
  expect(tokens.access).toHaveLength(1);
  expect(tokens.refresh).toHaveLength(1);
  return {
    res,
    meanwhile: meanwhile!,
    tokens,
    revocations: world.provider.revocationRequests.count - revocations,
  };
}

async function expectRevoked(tokens: { access: string[]; refresh: string[] }) {
  expect(await world.provider.provider.AccessToken.find(tokens.access[0]!)).toBeUndefined();
  expect(await world.provider.provider.RefreshToken.find(tokens.refresh[0]!)).toBeUndefined();
}

const storedFor = (organizationId: string) =>
  world.server.context.database.db
    .select()
    .from(connections)
    .where(eq(connections.organizationId, organizationId));

describe('a callback whose environment, project or integration goes away during the exchange', () => {
  it('environment deleted: environment_removed (not a 500), nothing kept, the tokens revoked at the provider', async () => {
    const target = await freshOrganization();
    const run = await callbackWhile(target, () =>
      world.server.request(
        'DELETE',
        `/api/v1/projects/${target.projectId}/environments/${target.environmentId}`,
        { key: target.org.ownerKey },
      ),
    );
    expect(run.meanwhile.status, run.meanwhile.text).toBe(204);
    const { params } = outcomeOf(run.res);
    expect(params).toMatchObject({ oauth_status: 'error', oauth_error: 'environment_removed' });
    expect(params.oauth_error_description).toBe(
      'The environment (or its project) was deleted during the authorization. ' +
        'The tokens the provider issued were revoked there.',
    );
    expect(run.revocations).toBe(2);
    await expectRevoked(run.tokens);
    expect(await storedFor(target.org.id)).toEqual([]);
  });

  it('project deleted: the same', async () => {
    const target = await freshOrganization();
    const run = await callbackWhile(target, () =>
      world.server.request('DELETE', `/api/v1/projects/${target.projectId}`, { key: target.org.ownerKey }),
    );
    expect(run.meanwhile.status, run.meanwhile.text).toBe(204);
    expect(outcomeOf(run.res).params).toMatchObject({
      oauth_status: 'error',
      oauth_error: 'environment_removed',
    });
    expect(run.revocations).toBe(2);
    await expectRevoked(run.tokens);
    expect(await storedFor(target.org.id)).toEqual([]);
  });

  it('integration removed: integration_changed, no connection to a removed integration, the tokens revoked', async () => {
    const target = await freshOrganization();
    const run = await callbackWhile(target, () =>
      world.server.request('DELETE', `/api/v1/organizations/${target.org.slug}/integrations/oidc`, {
        key: target.org.ownerKey,
      }),
    );
    expect(run.meanwhile.status, run.meanwhile.text).toBe(204);
    const { params } = outcomeOf(run.res);
    expect(params).toMatchObject({ oauth_status: 'error', oauth_error: 'integration_changed' });
    expect(params.oauth_error_description).toBe(
      'The integration was removed during the authorization; an owner or admin can register it again. ' +
        'The tokens the provider issued were revoked there.',
    );
    expect(run.revocations).toBe(2);
    await expectRevoked(run.tokens);
    expect(await storedFor(target.org.id)).toEqual([]);
  });

  it('a revocation the provider refuses is said in the description; the answer is still the documented error', async () => {
    const target = await freshOrganization();
    const run = await callbackWhile(target, async () => {
      world.provider.revocationEndpointDown = true;
      return world.server.request(
        'DELETE',
        `/api/v1/projects/${target.projectId}/environments/${target.environmentId}`,
        { key: target.org.ownerKey },
      );
    });
    world.provider.revocationEndpointDown = false;
    const { params } = outcomeOf(run.res);
    expect(params.oauth_error).toBe('environment_removed');
    expect(params.oauth_error_description).toMatch(/Revoking the tokens the provider issued failed/);
    expect(await storedFor(target.org.id)).toEqual([]);
  });

  it("a plan that filled up during the exchange: plan_limit_exceeded, and the provider's tokens revoked", async () => {
    const target = await freshOrganization();
    const run = await callbackWhile(target, () =>
      world.server.admin('PUT', `/admin/v1/organizations/${target.org.id}/limits`, { connections: 0 }),
    );
    expect(run.meanwhile.status, run.meanwhile.text).toBe(200);
    const { params } = outcomeOf(run.res);
    expect(params.oauth_error).toBe('plan_limit_exceeded');
    expect(params.oauth_error_description).toMatch(/The tokens the provider issued were revoked there\.$/);
    expect(run.revocations).toBe(2);
    await expectRevoked(run.tokens);
  });

  it('a deletion that comes after the connection was made is refused with 409 (the callback won the lock)', async () => {
    const target = await freshOrganization();
    const started = await startFlow(world, target.org.ownerKey, {
      projectId: target.projectId,
      environmentId: target.environmentId,
    });
    const redirect = await approveAtProvider(world, started);
    const done = outcomeOf(await callback(world, redirect, target.org.ownerKey, started.cookie));
    expect(done.params.oauth_status).toBe('success');
    const blocked = await world.server.request(
      'DELETE',
      `/api/v1/projects/${target.projectId}/environments/${target.environmentId}`,
      { key: target.org.ownerKey },
    );
    expect(blocked.status, blocked.text).toBe(409);
    expect(await storedFor(target.org.id)).toHaveLength(1);
  });
});
