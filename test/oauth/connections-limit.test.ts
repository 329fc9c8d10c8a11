import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type OAuthWorld, startOAuthWorld } from './harness.js';

describe("the plan's connections limit, at the callback that would add a Connection", () => {
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld();
    const limits = await world.server.admin('PUT', `/admin/v1/organizations/${world.org.id}/limits`, {
      connections: 1,
    });
    expect(limits.status, limits.text).toBe(200);
  });
  afterAll(() => world.close());

  it('a first Connection is made; a second is refused with plan_limit_exceeded; renewing the first is not', async () => {
    const first = await connect(world, world.org.ownerKey);
    expect(first.params.oauth_status).toBe('success');

    const second = await connect(world, world.org.ownerKey, { environmentId: world.otherEnvironmentId });
    expect(second.params).toMatchObject({ oauth_status: 'error', oauth_error: 'plan_limit_exceeded' });
    expect(second.params.oauth_error_description).toMatch(
      /^This organization's limit is 1 connections \(set by an operator; the Free plan allows 3\)/,
    );

    const renewed = await connect(world, world.org.ownerKey);
    expect(renewed.params).toMatchObject({
      oauth_status: 'success',
      connection_id: first.params.connection_id,
    });

    const listed = await world.server.request<{ data: { connections: unknown[] } }>(
      'GET',
      `/api/v1/projects/${world.projectId}/environments/${world.otherEnvironmentId}/connections`,
      { key: world.org.ownerKey },
    );
    expect(listed.status, listed.text).toBe(200);
    // The refused callback stored nothing.
    expect(listed.body.data.connections).toEqual([]);
  });
});
