import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseSkill, expertBody, published, uniqueName } from '../../test/registry/helpers.js';
import { runCli, tempProject } from '../../test/support/cli-harness.js';
import {
  addMember,
  createKey,
  createOrganization,
  type TestOrganization,
} from '../../test/support/fixtures.js';
import { startServer, type TestServer } from '../../test/support/server.js';

// `cadre policy …` and `cadre approvals …` against a real Cadre (docs/registry.md "Publish policies").
let server: TestServer;
let org: TestOrganization;
let adminKey: string;
let memberKey: string;
const cwd = tempProject({});

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'personal');
  adminKey = (await createKey(server, org, await addMember(server, org, 'admin'))).key;
  memberKey = (await createKey(server, org, await addMember(server, org, 'member'))).key;
});
afterAll(() => server.close());

const cli = (key: string, ...argv: string[]) =>
  runCli(argv, { cwd, env: { CADRE_URL: server.url, CADRE_API_KEY: key } });

describe('cadre policy', () => {
  it('shows the policy, applies the recommended preset and sets rules; a member may read, not change', async () => {
    const shown = await cli(memberKey, 'policy', 'show');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/allowed commands:\s+any/);

    const refused = await cli(memberKey, 'policy', 'preset', 'recommended');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('403 forbidden: Missing permission publish-policy:manage');

    const preset = await cli(adminKey, 'policy', 'preset', 'recommended');
    expect(preset.code, preset.stderr).toBe(0);
    expect(preset.stdout).toMatch(/allowed commands:\s+npx, uvx/);

    const set = await cli(
      adminKey,
      'policy',
      'set',
      '--pinned',
      'on',
      '--sse-hosts',
      'mcp.example.com,*.corp.test',
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/pinned package versions:\s+required/);
    expect(set.stdout).toMatch(/allowed SSE hosts:\s+mcp\.example\.com, \*\.corp\.test/);
    expect(set.stdout).toMatch(/allowed commands:\s+npx, uvx/);

    const json = await cli(memberKey, 'policy', 'show', '--json');
    expect(JSON.parse(json.stdout).policy).toEqual({
      allowedCommands: ['npx', 'uvx'],
      requirePinnedVersions: true,
      allowedSseHosts: ['mcp.example.com', '*.corp.test'],
      approvalRequiredForWidening: false,
      skillsFromCatalog: false,
    });

    const nothing = await cli(adminKey, 'policy', 'set');
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('nothing to change');
    const back = await cli(adminKey, 'policy', 'set', '--sse-hosts', 'any', '--pinned', 'off');
    expect(back.stdout, back.stderr).toMatch(/allowed SSE hosts:\s+any/);
  });
});

describe('cadre approvals', () => {
  it('lists a waiting version with why, refuses its publisher, and approves it with another admin', async () => {
    expect((await cli(adminKey, 'policy', 'set', '--approval', 'on')).code).toBe(0);
    const name = uniqueName('cli-approval');
    await published(server, org.ownerKey, expertBody(name, '1.0.0'));
    await published(
      server,
      org.ownerKey,
      expertBody(name, '1.1.0', {
        skills: {
          '@service/base': baseSkill,
          files: {
            type: 'mcpStdioSkill',
            command: 'npx',
            packageName: 'fs@1.0.0',
            requiredEnv: ['FS_TOKEN'],
          },
        },
      }),
    );
    const list = await cli(memberKey, 'approvals', 'list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`${name}@1.1.0`);
    expect(list.stdout).toContain('new skill "files" (mcpStdioSkill)');
    const json = await cli(memberKey, 'approvals', 'list', '--json');
    const [approval] = (JSON.parse(json.stdout) as { id: string; key: string }[]).filter(
      (a) => a.key === `${name}@1.1.0`,
    );

    const self = await cli(org.ownerKey, 'approvals', 'approve', approval!.id);
    expect(self.code).toBe(1);
    expect(self.stderr).toContain('another owner or admin must decide');

    const approved = await cli(adminKey, 'approvals', 'approve', approval!.id);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout.trim()).toBe(`${name}@1.1.0 approved; it is now latest`);
    const again = await cli(adminKey, 'approvals', 'reject', approval!.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('409 conflict');
    expect((await cli(memberKey, 'approvals', 'list', '--status', 'approved')).stdout).toContain(
      `${name}@1.1.0`,
    );
  });

  it('cadre publish says when a version waits for approval, and why', async () => {
    const name = uniqueName('cli-waits');
    await published(
      server,
      org.ownerKey,
      expertBody(name, '1.0.0', { description: 'Waits', instruction: 'Wait.' }),
    );
    const dir = tempProject({
      'cadre.toml': `
[experts."${name}"]
version = "1.1.0"
minRuntimeVersion = "0.1.0"
description = "Waits"
instruction = "Wait."

[experts."${name}".skills.search]
type = "mcpSseSkill"
endpoint = "https://mcp.example.com/sse"
`,
    });
    const run = await runCli(['publish'], {
      cwd: dir,
      env: { CADRE_URL: server.url, CADRE_API_KEY: org.ownerKey },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`published ${name}@1.1.0`);
    expect(run.stdout).toMatch(
      /awaiting approval \(\w+\): latest stays at 1\.0\.0 until another owner or admin approves/,
    );
    expect(run.stdout).toContain('widens access: new skill "search" (mcpSseSkill)');
  });
});
