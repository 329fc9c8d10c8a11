import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, published, uniqueName } from '../../test/registry/helpers.js';
import { runCli, tempProject } from '../../test/support/cli-harness.js';
import { createOrganization, type TestOrganization } from '../../test/support/fixtures.js';
import { startServer, type TestServer } from '../../test/support/server.js';

// Against a real Cadre: `cadre diff` of two versions reads GET /registry/diff, of one version and cadre.toml
// diffs locally by the same rules, and `cadre publish` prints the changes before it sends.
let server: TestServer;
let org: TestOrganization;
let name: string;
beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'personal');
  name = uniqueName('cli-diff');
  await published(server, org.ownerKey, expertBody(name, '1.0.0', { instruction: 'Write.' }));
  await published(
    server,
    org.ownerKey,
    expertBody(name, '1.1.0', {
      instruction: 'Write.\nCite sources.',
      skills: {
        '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' },
        search: { type: 'mcpSseSkill', endpoint: 'https://search.example/sse' },
      },
    }),
  );
});
afterAll(() => server.close());

const toml = (version: string, extra = '') => `
[experts."${name}"]
version = "${version}"
minRuntimeVersion = "0.1.0"
description = "The ${name} Expert"
instruction = "Write."
${extra}
`;

describe('cadre diff', () => {
  it('prints the changes between two published versions, widening ones with why', async () => {
    const run = await runCli(['diff', `${name}@1.0.0`, `${name}@1.1.0`], {
      cwd: tempProject({}),
      env: { CADRE_URL: server.url },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${name}@1.0.0 → ${name}@1.1.0`);
    expect(run.stdout).toMatch(/^! \+ skills\.search: /m);
    expect(run.stdout).toContain('widens access: new skill "search" (mcpSseSkill)');
    expect(run.stdout).toContain('~ instruction: +1 −0 lines');
    expect(run.stdout).toContain('this change widens what the Expert can reach');

    const json = await runCli(['diff', `${name}@1.0.0`, `${name}@1.1.0`, '--json'], {
      cwd: tempProject({}),
      env: { CADRE_URL: server.url },
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ widensAccess: true, from: `${name}@1.0.0` });
  });

  it('compares a published version with cadre.toml, and exits 1 on a name the file lacks', async () => {
    const cwd = tempProject({
      'cadre.toml': toml(
        '1.2.0',
        `[experts."${name}".skills.fs]\ntype = "mcpStdioSkill"\ncommand = "uvx"\nrequiredEnv = ["FS_TOKEN"]`,
      ),
    });
    const run = await runCli(['diff', `${name}@1.0.0`], { cwd, env: { CADRE_URL: server.url } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${name}@1.0.0 → ${name}@1.2.0 (cadre.toml)`);
    expect(run.stdout).toContain('widens access: new skill "fs" (mcpStdioSkill)');
    const missing = await runCli(['diff', 'someone-else@1.0.0'], { cwd, env: { CADRE_URL: server.url } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no Expert "someone-else" in the config');
  });

  it('cadre publish prints what it changes over latest before it sends', async () => {
    const cwd = tempProject({ 'cadre.toml': toml('1.3.0', `delegates = []`) });
    const run = await runCli(['publish'], {
      cwd,
      env: { CADRE_URL: server.url, CADRE_API_KEY: org.ownerKey },
    });
    expect(run.code, run.stderr).toBe(0);
    const changes = run.stdout.indexOf(`changes from ${name}@1.1.0:`);
    expect(changes).toBeGreaterThanOrEqual(0);
    expect(run.stdout).toContain('- skills.search:');
    expect(run.stdout.indexOf(`published ${name}@1.3.0`)).toBeGreaterThan(changes);
  });

  it('cadre experts dependents prints who delegates to a version, with the path', async () => {
    const user = uniqueName('cli-user');
    await published(server, org.ownerKey, expertBody(user, '1.0.0', { delegates: [`${name}@1.0.0`] }));
    const run = await runCli(['experts', 'dependents', `${name}@1.0.0`], {
      cwd: tempProject({}),
      env: { CADRE_URL: server.url },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(/^DEPTH\s+PATH/);
    expect(run.stdout).toContain(`${user}@1.0.0`);
    expect(run.stdout).toMatch(new RegExp(`^1\\s+${user}@1\\.0\\.0 → ${name}@1\\.0\\.0$`, 'm'));
    expect(run.stderr).toContain(`1 dependent of ${name}@1.0.0`);
  });
});
