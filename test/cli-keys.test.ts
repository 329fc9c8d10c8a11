import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_PERMISSIONS } from '../src/modules/auth/permissions.js';
import { runCli } from './support/cli-harness.js';
import {
  addMember,
  createKey,
  createOrganization,
  createProject,
  type TestOrganization,
} from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

// `cadre keys create|list|revoke|roll` against a real server, with the caller's own key.
let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'team');
});
afterAll(() => server.close());

const cli = (args: string[], key = org.ownerKey) =>
  runCli(args, { cwd: process.cwd(), env: { CADRE_URL: server.url, CADRE_API_KEY: key } });
const me = async (key: string) =>
  (await server.request<{ data: { permissions: string[]; grants: unknown } }>('GET', '/api/v1/me', { key }))
    .body.data;

describe('cadre keys', () => {
  it("creates a member's key following the role by default, or with areas and levels", async () => {
    const memberId = await addMember(server, org, 'member');
    const memberKey = (
      await createKey(server, org, memberId, { type: 'organization', permissions: ['api-keys:create'] })
    ).key;
    const everything = await cli(['keys', 'create', '--name', 'laptop'], memberKey);
    expect(everything.code, everything.stderr).toBe(0);
    const secret = everything.stdout.trim();
    expect(secret).toMatch(/^cadre_[0-9A-Za-z]{40}$/);
    expect(everything.stderr).toContain('everything the role allows');
    expect(new Set((await me(secret)).permissions)).toEqual(new Set(ROLE_PERMISSIONS.member));

    const narrow = await cli(
      [
        'keys',
        'create',
        '--access',
        'projects=operate',
        '--access',
        'billing=read',
        '--expires',
        '30d',
        '--json',
      ],
      memberKey,
    );
    expect(narrow.code, narrow.stderr).toBe(0);
    const created = JSON.parse(narrow.stdout) as { key: string; expiresAt: string };
    expect(Date.parse(created.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect((await me(created.key)).grants).toEqual({
      type: 'organization',
      permissions: ['projects:read', 'projects:operate', 'billing:read'],
    });

    // Beyond the role: the server's 403 names what the role lacks.
    const beyond = await cli(['keys', 'create', '--access', 'billing=write'], memberKey);
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toContain('cannot grant: billing:manage');
    const unknown = await cli(['keys', 'create', '--access', 'billing=admin'], memberKey);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('levels of billing: read, write');
  });

  it('creates a key for one project, lists, rolls and revokes', async () => {
    const shop = await createProject(server, org, 'shop');
    const made = await cli([
      'keys',
      'create',
      '--name',
      'deploy',
      '--project',
      shop.project.id,
      '--access',
      'agents=run',
      '--expires',
      '10d',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const oldSecret = made.stdout.trim();
    const oldId = made.stderr.match(/created (\S+) \(deploy\)/)![1]!;

    const listed = await cli(['keys', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const row = listed.stdout.split('\n').find((line) => line.startsWith(oldId))!;
    expect(row).toContain('deploy');
    expect(row).toContain('active');
    expect(row).toContain(`projects ${shop.project.id}: agents:run`);

    const rolled = await cli(['keys', 'roll', oldId]);
    expect(rolled.code, rolled.stderr).toBe(0);
    const newSecret = rolled.stdout.trim();
    expect(newSecret).not.toBe(oldSecret);
    expect(rolled.stderr).toContain(`revoked ${oldId}`);
    expect((await server.request('GET', '/api/v1/me', { key: oldSecret })).status).toBe(401);
    const replacement = await me(newSecret);
    expect(replacement.grants).toEqual({
      type: 'project',
      projectIds: [shop.project.id],
      permissions: ['agents:run'],
    });
    const json = JSON.parse((await cli(['keys', 'list', '--json'])).stdout) as Array<{
      id: string;
      name: string;
      start: string;
      expiresAt: string;
      createdAt: string;
    }>;
    const fresh = json.find((k) => k.start === newSecret.slice(0, 12))!;
    expect(fresh.name).toBe('deploy');
    // The same ten-day lifetime, counted from the roll.
    expect(Date.parse(fresh.expiresAt) - Date.parse(fresh.createdAt)).toBe(10 * 86_400_000);

    const revoked = await cli(['keys', 'revoke', fresh.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout.trim()).toBe(`revoked ${fresh.id} (deploy)`);
    expect((await server.request('GET', '/api/v1/me', { key: newSecret })).status).toBe(401);
    const again = await cli(['keys', 'roll', fresh.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already revoked');
  });
  it('names the project and the environment a key reaches as people type them: slug, project/name, or id', async () => {
    const web = await createProject(server, org, 'web');
    const detail = await server.request<{ data: { environments: Array<{ id: string; name: string }> } }>(
      'GET',
      `/api/v1/projects/${web.project.id}`,
      { key: org.ownerKey },
    );
    const production = detail.body.data.environments.find((e) => e.name === 'production')!;

    const bySlug = await cli(['keys', 'create', '--project', 'web', '--access', 'projects=read']);
    expect(bySlug.code, bySlug.stderr).toBe(0);
    expect((await me(bySlug.stdout.trim())).grants).toMatchObject({
      type: 'project',
      projectIds: [web.project.id],
    });

    const byName = await cli([
      'keys',
      'create',
      '--environment',
      'web/production',
      '--access',
      'projects=operate',
    ]);
    expect(byName.code, byName.stderr).toBe(0);
    expect((await me(byName.stdout.trim())).grants).toMatchObject({
      type: 'environment',
      environmentIds: [production.id],
    });

    const noSuchEnvironment = await cli([
      'keys',
      'create',
      '--environment',
      'web/staging',
      '--access',
      'projects=operate',
    ]);
    expect(noSuchEnvironment.code).toBe(1);
    expect(noSuchEnvironment.stderr).toContain('project web has no environment staging');

    // Another organization's project by its slug reads as unknown.
    const other = await createOrganization(server, 'team');
    await createProject(server, other, 'elsewhere');
    const foreign = await cli(['keys', 'create', '--project', 'elsewhere', '--access', 'projects=read']);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/not found/i);
  });
});
