import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_ID, CLIENT_SECRET, connect, type OAuthWorld, startOAuthWorld } from './oauth/harness.js';
import { runCli, tempProject } from './support/cli-harness.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';

type Project = { id: string; slug: string; name: string; environments: Array<{ id: string; name: string }> };

let world: OAuthWorld;
let org: TestOrganization;
let dir: string;

beforeAll(async () => {
  world = await startOAuthWorld();
  org = await createOrganization(world.server, 'team');
  dir = tempProject({});
});
afterAll(() => world.close());

const cli = (args: string[], key = org.ownerKey) =>
  runCli(args, { cwd: dir, env: { CADRE_URL: world.server.url, CADRE_API_KEY: key } });

describe('cadre projects create|rename|delete, env …, agent …', () => {
  it('creates, renames and deletes a project, an environment and an agent; --json for scripts', async () => {
    const created = await cli(['projects', 'create', '--slug', 'web', '--name', 'Web', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout) as Project;
    expect(project).toMatchObject({ slug: 'web', name: 'Web' });
    expect(project.environments.map((e) => e.name).sort()).toEqual(['development', 'production']);

    const renamed = await cli(['projects', 'rename', project.id, '--name', 'Web shop']);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toContain('is now web (Web shop)');

    const env = await cli(['projects', 'env', 'create', project.id, '--name', 'staging', '--json']);
    expect(env.code, env.stderr).toBe(0);
    const environmentId = (JSON.parse(env.stdout) as { id: string }).id;
    const envRenamed = await cli([
      'projects',
      'env',
      'rename',
      project.id,
      environmentId,
      '--name',
      'preview',
    ]);
    expect(envRenamed.stdout).toContain(`environment ${environmentId} is now preview`);

    const agent = await cli(['projects', 'agent', 'create', project.id, '--name', 'triage', '--json']);
    const agentId = (JSON.parse(agent.stdout) as { id: string }).id;
    expect((await cli(['projects', 'agent', 'rename', project.id, agentId, '--name', 'bot'])).code).toBe(0);
    expect((await cli(['projects', 'agent', 'delete', project.id, agentId])).stdout).toContain(
      'deleted agent',
    );

    const listed = JSON.parse((await cli(['projects', 'list', '--json'])).stdout) as Project[];
    const shown = listed.find((p) => p.id === project.id)!;
    expect(shown.environments.map((e) => e.name).sort()).toEqual(['development', 'preview', 'production']);
    expect(JSON.stringify(shown)).not.toContain('triage');

    const envDeleted = await cli(['projects', 'env', 'delete', project.id, environmentId]);
    expect(envDeleted.code, envDeleted.stderr).toBe(0);
    const deleted = await cli(['projects', 'delete', project.id]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain(`deleted project ${project.id}`);
    expect((await cli(['projects', 'list', '--json'])).stdout).not.toContain(project.id);
  });

  it('names a project by its slug and an environment by its name, in the key’s organization or --org', async () => {
    const created = await cli(['projects', 'create', '--slug', 'shop', '--name', 'Shop', '--json']);
    const project = JSON.parse(created.stdout) as Project;
    const env = await cli(['projects', 'env', 'create', 'shop', '--name', 'staging']);
    expect(env.code, env.stderr).toBe(0);
    expect(env.stdout).toMatch(/^created environment staging \(\w+\)/);
    const renamed = await cli([
      'projects',
      'env',
      'rename',
      'shop',
      'staging',
      '--name',
      'preview',
      '--org',
      org.slug,
    ]);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toMatch(/^environment \w+ is now preview/);
    const listed = JSON.parse(
      (await cli(['projects', 'list', '--org', org.id, '--json'])).stdout,
    ) as Project[];
    const shop = listed.find((p) => p.slug === 'shop')!;
    expect(shop.id).toBe(project.id);
    expect(shop.environments.map((e) => e.name).sort()).toEqual(['development', 'preview', 'production']);
    expect((await cli(['projects', 'env', 'delete', 'shop', 'preview'])).stdout).toContain(
      'deleted environment preview',
    );

    const other = await createOrganization(world.server, 'team');
    const foreign = await cli(['projects', 'env', 'create', 'shop', '--name', 'x', '--org', other.slug]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain(`Organization ${other.slug} not found`);
    const notTheirs = await cli(['projects', 'env', 'create', 'shop', '--name', 'x'], other.ownerKey);
    expect(notTheirs.code).toBe(1);
    expect(notTheirs.stderr).toContain('Project shop not found');
  });

  it('a delete in use exits 1 naming what blocks it; --cascade revokes it; a member exits 1; no key, bad input: 1', async () => {
    const project = JSON.parse(
      (await cli(['projects', 'create', '--slug', 'api', '--name', 'API', '--json'])).stdout,
    ) as Project;
    const key = await createKey(
      world.server,
      org,
      org.ownerId,
      { type: 'project', projectIds: [project.id], permissions: ['projects:read'] },
      { name: 'ci deploys' },
    );
    const blocked = await cli(['projects', 'delete', project.id]);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain('409 conflict');
    expect(blocked.stderr).toContain(`apiKeys.${key.id}: ci deploys`);
    const cascaded = await cli(['projects', 'delete', project.id, '--cascade']);
    expect(cascaded.code, cascaded.stderr).toBe(0);
    expect((await cli(['whoami'], key.key)).code).toBe(1);

    const memberId = await addMember(world.server, org, 'member');
    const memberKey = await createKey(world.server, org, memberId);
    const refused = await cli(['projects', 'create', '--slug', 'nope', '--name', 'Nope'], memberKey.key);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('403 forbidden');
    expect(
      (await runCli(['projects', 'create', '--slug', 'x', '--name', 'x'], { cwd: dir, env: {} })).code,
    ).toBe(1);
    expect((await cli(['projects', 'rename', 'p123'])).code).toBe(1);
    const unreachable = await runCli(['projects', 'create', '--slug', 'x', '--name', 'x'], {
      cwd: dir,
      env: { CADRE_URL: 'http://127.0.0.1:9', CADRE_API_KEY: org.ownerKey },
    });
    expect(unreachable.code).toBe(2);
  });
});

describe('cadre integrations list|add|update|remove', () => {
  it('adds one with the secret from a file (never printed), lists it, rotates the secret, removes it', async () => {
    const secretFile = join(dir, 'client-secret');
    writeFileSync(secretFile, `${CLIENT_SECRET}\n`);
    const added = await cli([
      'integrations',
      'add',
      'oidc',
      '--issuer',
      world.provider.issuer,
      '--client-id',
      CLIENT_ID,
      '--client-secret-file',
      secretFile,
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('registered oidc version 1 (not verified yet)');
    const again = await cli([
      'integrations',
      'add',
      'oidc',
      '--issuer',
      world.provider.issuer,
      '--client-id',
      CLIENT_ID,
      '--client-secret-file',
      secretFile,
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('409 conflict');

    const listed = await cli(['integrations', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/oidc\s+1\s+no\s+cadre-test-client/);
    const json = JSON.parse((await cli(['integrations', 'list', '--json'])).stdout) as Array<{
      presetKey: string;
    }>;
    expect(json.map((i) => i.presetKey)).toEqual(['oidc']);

    writeFileSync(secretFile, 'a-rotated-secret');
    const updated = await cli(['integrations', 'update', 'oidc', '--client-secret-file', secretFile]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('oidc version 2 (not verified yet)');
    expect((await cli(['integrations', 'update', 'oidc'])).code).toBe(1);

    for (const run of [added, listed, updated]) {
      expect(run.stdout + run.stderr).not.toContain(CLIENT_SECRET);
      expect(run.stdout + run.stderr).not.toContain('a-rotated-secret');
    }

    const memberId = await addMember(world.server, org, 'member');
    const memberKey = await createKey(world.server, org, memberId);
    const refused = await cli(['integrations', 'remove', 'oidc'], memberKey.key);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('403 forbidden');
    const removed = await cli(['integrations', 'remove', 'oidc']);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await cli(['integrations', 'list', '--json'])).stdout.trim()).toBe('[]');
    expect((await cli(['integrations', 'remove', 'oidc'])).code).toBe(1);
  });

  it('remove exits 1 naming the connections made with it; --cascade disconnects them', async () => {
    // The harness's organization has a verified oidc integration and a project to connect.
    const { params } = await connect(world, world.org.ownerKey);
    expect(params.oauth_status).toBe('success');
    const blocked = await cli(
      ['integrations', 'remove', 'oidc', '--org', world.org.slug],
      world.org.ownerKey,
    );
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`connections.${params.connection_id}`);
    const removed = await cli(['integrations', 'remove', 'oidc', '--cascade'], world.org.ownerKey);
    expect(removed.code, removed.stderr).toBe(0);
    const connections = await world.server.request<{ data: { connections: unknown[] } }>(
      'GET',
      `/api/v1/projects/${world.projectId}/environments/${world.environmentId}/connections`,
      { key: world.org.ownerKey },
    );
    expect(connections.body.data.connections).toEqual([]);
  });
});
