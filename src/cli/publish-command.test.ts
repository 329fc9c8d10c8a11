import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../../test/support/cli-harness.js';
import { FAKE_API_KEY, type FakeRegistry, startFakeRegistry } from '../../test/support/fake-registry.js';

// writer → editor → critic inside the file; publishing must go critic, editor, writer.
const TEAM = `
[experts.writer]
version = "1.0.0"
instruction = "Write."
delegates = ["editor"]

[experts.editor]
version = "2.0.0"
instruction = "Edit."
delegates = ["critic@latest"]
tags = ["stable"]

[experts.critic]
version = "1.1.0"
description = "Finds problems"
instruction = "Criticise."
[experts.critic.skills.lint]
type = "mcpStdioSkill"
command = "npx"
packageName = "@example/lint"
`;

let registry: FakeRegistry;
let env: Record<string, string>;
beforeEach(async () => {
  registry = await startFakeRegistry();
  env = { CADRE_URL: registry.url, CADRE_API_KEY: FAKE_API_KEY };
});
afterEach(() => registry.close());

const posts = () =>
  registry.requests.filter((r) => r.method === 'POST').map((r) => (r.body as { name: string }).name);

describe('cadre publish', () => {
  it('publishes delegated-to Experts first, then reads them back through the registry', async () => {
    const dir = tempProject({ 'cadre.toml': TEAM });
    const run = await runCli(['publish'], { cwd: dir, env });
    expect(run.stderr).toContain('[1/3] critic@1.1.0');
    expect(run).toMatchObject({ code: 0 });
    expect(run.stdout).toBe('published critic@1.1.0\npublished editor@2.0.0\npublished writer@1.0.0\n');
    expect(posts()).toEqual(['critic', 'editor', 'writer']);
    expect(
      registry.requests
        .filter((r) => r.method === 'POST')
        .every((r) => r.authorization === `Bearer ${FAKE_API_KEY}`),
    ).toBe(true);
    const critic = registry.requests.find((r) => r.method === 'POST')?.body;
    expect(critic).toEqual({
      name: 'critic',
      version: '1.1.0',
      minRuntimeVersion: 'v1.0',
      description: 'Finds problems',
      instruction: 'Criticise.',
      skills: {
        '@service/base': {
          type: 'mcpStdioSkill',
          description: 'Base tools every Expert gets from the Cadre runtime',
          command: 'npx',
          packageName: '@cadre/base',
        },
        lint: { type: 'mcpStdioSkill', command: 'npx', packageName: '@example/lint' },
      },
    });

    const info = await runCli(['experts', 'info', 'writer', '--json'], { cwd: dir, env });
    expect(JSON.parse(info.stdout)).toMatchObject({
      key: 'writer@1.0.0',
      delegates: ['editor'],
      tags: ['latest'],
    });
    const list = await runCli(['experts', 'list', '--json'], { cwd: dir, env });
    expect(JSON.parse(list.stdout).data.experts.map((e: { key: string }) => e.key)).toEqual([
      'critic@1.1.0',
      'editor@2.0.0',
      'writer@1.0.0',
    ]);
  });

  it('publishes only the named Experts and the ones they delegate to', async () => {
    const run = await runCli(['publish', 'editor'], { cwd: tempProject({ 'cadre.toml': TEAM }), env });
    expect(run.code).toBe(0);
    expect(posts()).toEqual(['critic', 'editor']);
  });

  it('re-running skips versions already published with the same definition', async () => {
    const dir = tempProject({ 'cadre.toml': TEAM });
    await runCli(['publish'], { cwd: dir, env });
    const again = await runCli(['publish'], { cwd: dir, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('unchanged writer@1.0.0 (already published)');
    expect(posts()).toEqual(['critic', 'editor', 'writer']);
  });

  it('refuses a changed definition under an already published version', async () => {
    const dir = tempProject({ 'cadre.toml': TEAM });
    await runCli(['publish', 'critic'], { cwd: dir, env });
    const changed = tempProject({ 'cadre.toml': TEAM.replace('Criticise.', 'Criticise harshly.') });
    const run = await runCli(['publish'], { cwd: changed, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: critic@1.1.0 is already published with a different definition');
    expect(run.stderr).toContain('raise "version" of "critic"');
    expect(run.stderr).toContain('0 published, 0 unchanged, 3 not published');
    expect(posts()).toEqual(['critic']);
  });

  it('--dry-run prints the payloads in publish order without any request or API key', async () => {
    const run = await runCli(['publish', '--dry-run'], { cwd: tempProject({ 'cadre.toml': TEAM }), env: {} });
    expect(run.code).toBe(0);
    const payloads = JSON.parse(run.stdout) as { name: string; delegates?: string[]; tags?: string[] }[];
    expect(payloads.map((p) => p.name)).toEqual(['critic', 'editor', 'writer']);
    expect(payloads[1]).toMatchObject({ delegates: ['critic@latest'], tags: ['stable'] });
    expect(run.stderr).toBe(
      'dry run: would publish critic@1.1.0, editor@2.0.0, writer@1.0.0 in this order\n',
    );
    expect(registry.requests).toEqual([]);
  });

  it('never sends keys Cadre does not define, and says which it left out', async () => {
    const file = `${TEAM}\nlazyInit = true\n`.replace(
      '[experts.',
      'allowedDomains = ["example.com"]\n\n[experts.',
    );
    const run = await runCli(['publish', '--dry-run'], { cwd: tempProject({ 'cadre.toml': file }), env: {} });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('allowedDomains');
    expect(run.stdout).not.toContain('lazyInit');
    expect(run.stderr).toMatch(/keys Cadre does not define are left out of what is published: .*lazyInit/);
  });

  it('shows the registry reason and exits 1 on a 4xx', async () => {
    const dir = tempProject({
      'cadre.toml': '[experts.lonely]\ninstruction = "x"\ndelegates = ["ghost@1.0.0"]\n',
    });
    const run = await runCli(['publish'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'publishing lonely@1.0.0 failed: 400 Bad Request: delegate ghost@1.0.0 is not a published Expert',
    );
  });

  it('exits 2 on a server error and on an unreachable registry', async () => {
    const dir = tempProject({ 'cadre.toml': TEAM });
    registry.failNext(503, { code: 503, error: 'Service Unavailable', reason: 'try again' });
    const unavailable = await runCli(['publish'], { cwd: dir, env });
    expect(unavailable.code).toBe(2);
    expect(unavailable.stderr).toContain('registry answered 503 Service Unavailable: try again');
    await registry.close();
    const down = await runCli(['publish'], { cwd: dir, env });
    expect(down.code).toBe(2);
    expect(down.stderr).toContain(`error: cannot reach Cadre at ${registry.url} (ECONNREFUSED)`);
    expect(down.stderr).toContain('hint: is the server running (npm start');
    expect(down.stderr).toContain('The URL came from CADRE_URL: pass --url or set CADRE_URL');
    registry = await startFakeRegistry(); // afterEach closes it
  });

  it('user errors: no API key, unknown Expert, invalid config, cycle', async () => {
    const dir = tempProject({ 'cadre.toml': TEAM });
    const noKey = await runCli(['publish'], { cwd: dir, env: { CADRE_URL: registry.url } });
    expect(noKey).toMatchObject({ code: 1 });
    expect(noKey.stderr).toContain('hint: run cadre login');
    const unknown = await runCli(['publish', 'editr'], { cwd: dir, env });
    expect(unknown).toMatchObject({
      code: 1,
      stderr: 'error: no Expert "editr" in the config\nhint: did you mean "editor"?\n',
    });
    const cyclic = tempProject({ 'cadre.toml': '[experts.a]\ninstruction = "a"\ndelegates = ["a"]\n' });
    const cycle = await runCli(['publish'], { cwd: cyclic, env });
    expect(cycle.code).toBe(1);
    expect(cycle.stderr).toContain('Expert "a" delegates to itself');
    expect(registry.requests).toEqual([]);
  });

  it('--url overrides CADRE_URL', async () => {
    const dir = tempProject({ 'cadre.toml': '[experts.solo]\ninstruction = "x"\n' });
    const run = await runCli(['publish', '--url', registry.url], {
      cwd: dir,
      env: { CADRE_URL: 'http://127.0.0.1:1', CADRE_API_KEY: FAKE_API_KEY },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('deprecated');
    expect(posts()).toEqual(['solo']);
  });

  it('the former names --registry and CADRE_REGISTRY_URL still work, with a deprecation warning', async () => {
    const dir = tempProject({ 'cadre.toml': '[experts.solo]\ninstruction = "x"\n' });
    const byOption = await runCli(['publish', '--registry', registry.url], {
      cwd: dir,
      env: { CADRE_API_KEY: FAKE_API_KEY },
    });
    expect(byOption.code).toBe(0);
    expect(byOption.stderr).toContain('warning: --registry is deprecated; use --url or CADRE_URL');
    const byEnv = await runCli(['publish'], {
      cwd: dir,
      env: { CADRE_REGISTRY_URL: registry.url, CADRE_API_KEY: FAKE_API_KEY },
    });
    expect(byEnv.code).toBe(0);
    expect(byEnv.stderr).toContain('warning: CADRE_REGISTRY_URL is deprecated; use --url or CADRE_URL');
    expect(byEnv.stdout).toMatch(/^unchanged solo@\S+ \(already published\)\n$/);
  });

  it('a rejected API key fails with the 401 message before anything is reported unchanged', async () => {
    const dir = tempProject({ 'cadre.toml': TEAM });
    expect((await runCli(['publish'], { cwd: dir, env })).code).toBe(0);
    const run = await runCli(['publish'], { cwd: dir, env: { ...env, CADRE_API_KEY: 'cadre_wrong' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      'error: the registry rejected the API key: 401 unauthorized: Invalid API key',
    );
    expect(run.stderr).toContain('hint: an unknown, revoked or expired key: run cadre login');
  });
});
