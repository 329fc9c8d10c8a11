import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli-harness.js';
import { ROOT } from './support/process.js';
import { ADMIN_TOKEN, startServer, type TestServer } from './support/server.js';

const exec = promisify(execFile);
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const admin = (args: string[], env: Record<string, string> = {}) =>
  runCli(['admin', ...args], {
    cwd: ROOT,
    env: { CADRE_URL: server.url, CADRE_ADMIN_TOKEN: ADMIN_TOKEN, ...env },
  });

describe('cadre admin', () => {
  it('creates an organization, a member, a project, an environment, an agent and a key (--json for scripts)', async () => {
    const org = await admin([
      '--json',
      'org',
      'create',
      '--slug',
      'cli-org',
      '--name',
      'CLI Org',
      '--type',
      'team',
      '--owner-email',
      'o@cli.test',
    ]);
    expect(org.code, org.stderr).toBe(0);
    const created = JSON.parse(org.stdout) as { organization: { id: string }; apiKey: { key: string } };
    expect(created.apiKey.key).toMatch(/^cadre_/);

    const member = await admin([
      '--json',
      'member',
      'add',
      'cli-org',
      '--email',
      'm@cli.test',
      '--role',
      'member',
    ]);
    expect(member.code, member.stderr).toBe(0);
    const userId = (JSON.parse(member.stdout) as { user: { id: string } }).user.id;

    const project = await admin(['--json', 'project', 'create', 'cli-org', '--slug', 'web', '--name', 'Web']);
    const projectId = (JSON.parse(project.stdout) as { project: { id: string } }).project.id;
    expect((await admin(['env', 'create', projectId, '--name', 'staging'])).stdout).toContain(
      'environment staging',
    );
    expect((await admin(['agent', 'create', projectId, '--name', 'triage'])).stdout).toContain(
      'agent triage',
    );

    const key = await admin([
      'key',
      'create',
      'cli-org',
      userId,
      '--grants',
      '{"type":"organization","permissions":["experts:write"]}',
    ]);
    expect(key.code, key.stderr).toBe(0);
    const secret = /secret {2}(cadre_\w+)/.exec(key.stdout)?.[1];
    expect(secret).toBeDefined();
    expect((await server.request('GET', '/api/v1/api-keys', { key: secret })).status).toBe(403);

    expect((await admin(['member', 'role', 'cli-org', userId, '--role', 'admin'])).stdout).toContain(
      'is now admin',
    );
    const transfer = await admin(['org', 'transfer-ownership', 'cli-org', userId]);
    expect(transfer.code, transfer.stderr).toBe(0);
    expect(transfer.stdout).toMatch(new RegExp(`${userId} is now the owner; \\w+ is now admin`));
    const limits = await admin(['org', 'limits', 'cli-org', '--api-keys', '40', '--connections', 'plan']);
    expect(limits.code, limits.stderr).toBe(0);
    expect(limits.stdout).toMatch(/apiKeys\s+40 {2}\(override\)/);
    expect(limits.stdout).toMatch(/connections\s+3 {2}\(plan free\)/);
    expect((await admin(['org', 'limits', 'cli-org', '--api-keys', 'lots'])).code).toBe(1);
    const audit = await admin(['audit', 'cli-org']);
    expect(audit.stdout).toContain('api_key.created');
    expect(audit.stdout).toContain('organization.ownership_transferred_to');
  });

  it('reports server errors with their code and exits 1; a missing token or server exits 1 or 2', async () => {
    const bad = await admin([
      'org',
      'create',
      '--slug',
      'Bad Slug',
      '--name',
      'x',
      '--type',
      'corp',
      '--owner-email',
      'nope',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('validation_failed');
    const noToken = await runCli(['admin', 'audit', 'x'], { cwd: ROOT, env: { CADRE_URL: server.url } });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('admin token');
    const wrongToken = await admin(['audit', 'x'], { CADRE_ADMIN_TOKEN: 'wrong' });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toContain('401');
    const down = await admin(['audit', 'x'], { CADRE_URL: 'http://127.0.0.1:9' });
    expect(down.code).toBe(2);
    expect(down.stderr).toContain('error: cannot reach Cadre at http://127.0.0.1:9 (');
    expect(down.stderr).toContain('hint: is the server running');
    expect(down.stderr).toContain('The URL came from CADRE_URL');
  });

  it('works as the installed binary with --url and --token flags', async () => {
    const { stdout } = await exec(
      process.execPath,
      [
        'dist/cli/main.js',
        'admin',
        '--url',
        server.url,
        '--token',
        ADMIN_TOKEN,
        '--json',
        'org',
        'create',
        '--slug',
        'bin-org',
        '--name',
        'Bin',
        '--type',
        'personal',
        '--owner-email',
        'o@bin.test',
      ],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } },
    );
    expect((JSON.parse(stdout) as { organization: { accountType: string } }).organization.accountType).toBe(
      'personal',
    );
  });
});
