import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../../test/support/cli-harness.js';
import { FAKE_API_KEY, type FakeRegistry, startFakeRegistry } from '../../test/support/fake-registry.js';

const FILE = `
[experts."@acme/writer"]
version = "1.0.0"
description = "Writes"
instruction = "Write."
`;
const FILE_V2 = FILE.replace('version = "1.0.0"', 'version = "2.0.0"');

let registry: FakeRegistry;
let env: Record<string, string>;
let cwd: string;
beforeEach(async () => {
  registry = await startFakeRegistry();
  env = { CADRE_URL: registry.url, CADRE_API_KEY: FAKE_API_KEY };
  cwd = tempProject({ 'cadre.toml': FILE, 'v2/cadre.toml': FILE_V2 });
  expect((await runCli(['publish'], { cwd, env })).code).toBe(0);
  expect((await runCli(['publish'], { cwd: `${cwd}/v2`, env })).code).toBe(0);
  registry.requests.length = 0;
});
afterEach(() => registry.close());

const last = () => registry.requests.at(-1);

describe('cadre experts (reads need no API key)', () => {
  const readEnv = () => ({ CADRE_URL: registry.url });

  it('list prints a table and sends the query', async () => {
    const run = await runCli(
      ['experts', 'list', '--filter', 'ac', '--sort', 'name', '--order', 'asc', '--take', '5'],
      {
        cwd,
        env: readEnv(),
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(/^NAME\s+VERSION\s+TAGS\s+OWNER\s+DESCRIPTION$/);
    expect(run.stdout).toMatch(/@acme\/writer\s+2\.0\.0\s+latest\s+demo\s+Writes/);
    expect(last()?.url).toBe('/registry/experts?filter=ac&sort=name&order=asc&take=5');
    expect(last()?.authorization).toBeUndefined();
  });

  it('list validates its options before any request', async () => {
    const run = await runCli(['experts', 'list', '--take', '500'], { cwd, env: readEnv() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('must be an integer from 1 to 100');
    expect(registry.requests).toEqual([]);
  });

  it('info resolves versions and tags, percent-encoding scoped keys', async () => {
    const run = await runCli(['experts', 'info', '@acme/writer@1.0.0'], { cwd, env: readEnv() });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^key:\s+@acme\/writer@1\.0\.0$/m);
    expect(run.stdout).toMatch(/^status:\s+available$/m);
    // Every label is followed by at least one space, the longest one too.
    expect(run.stdout).toMatch(/^minRuntimeVersion: +\S/m);
    expect(run.stdout).toMatch(/^integrity:\s+sha256-[A-Za-z0-9+/]{43}=$/m);
    expect(run.stdout).toContain('instruction:\nWrite.');
    expect(last()?.url).toBe('/registry/experts/%40acme%2Fwriter%401.0.0');
  });

  it('info on an unknown Expert exits 1 with the registry reason', async () => {
    const run = await runCli(['experts', 'info', 'nobody'], { cwd, env: readEnv() });
    expect(run).toMatchObject({
      code: 1,
      stderr: 'error: registry answered 404 Not Found: Expert nobody not found\n',
    });
  });

  it('rejects malformed keys locally', async () => {
    const run = await runCli(['experts', 'info', 'Bad Key'], { cwd, env: readEnv() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: invalid Expert key "Bad Key": Expert name "Bad Key" must be lowercase/,
    );
    expect(registry.requests).toEqual([]);
  });

  it('versions lists every version with tags', async () => {
    const run = await runCli(['experts', 'versions', '@acme/writer', '--json'], { cwd, env: readEnv() });
    expect(JSON.parse(run.stdout)).toMatchObject({
      latest: '2.0.0',
      versions: [
        { version: '1.0.0', tags: [] },
        { version: '2.0.0', tags: ['latest'] },
      ],
    });
    expect(last()?.url).toBe('/registry/experts/%40acme%2Fwriter/versions');
  });
});

describe('cadre experts (writes)', () => {
  it.each([
    ['deprecate', 'deprecated'],
    ['disable', 'disabled'],
  ])('%s sends status %s', async (command, status) => {
    const run = await runCli(['experts', command, '@acme/writer@1.0.0'], { cwd, env });
    expect(run).toMatchObject({ code: 0, stdout: `@acme/writer@1.0.0 is now ${status}\n` });
    expect(last()).toMatchObject({
      method: 'POST',
      url: '/registry/experts/%40acme%2Fwriter%401.0.0',
      authorization: `Bearer ${FAKE_API_KEY}`,
      body: { status },
    });
  });

  it('undeprecate makes a version available again; a refused transition exits 1', async () => {
    await runCli(['experts', 'deprecate', '@acme/writer@1.0.0'], { cwd, env });
    const run = await runCli(['experts', 'undeprecate', '@acme/writer@1.0.0'], { cwd, env });
    expect(run.code).toBe(0);
    expect(last()?.body).toEqual({ status: 'available' });
    const again = await runCli(['experts', 'undeprecate', '@acme/writer@1.0.0'], { cwd, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('cannot change status from available to available');
  });

  it('tag replaces custom tags, --clear removes them, latest is refused locally', async () => {
    expect((await runCli(['experts', 'tag', '@acme/writer@1.0.0', 'stable', 'lts'], { cwd, env })).code).toBe(
      0,
    );
    expect(last()?.body).toEqual({ tags: ['stable', 'lts'] });
    expect((await runCli(['experts', 'tag', '@acme/writer@1.0.0', '--clear'], { cwd, env })).code).toBe(0);
    expect(last()?.body).toEqual({ tags: [] });
    const count = registry.requests.length;
    const latest = await runCli(['experts', 'tag', '@acme/writer@1.0.0', 'latest'], { cwd, env });
    expect(latest.code).toBe(1);
    expect(latest.stderr).toContain('"latest" is assigned by the registry');
    const none = await runCli(['experts', 'tag', '@acme/writer@1.0.0'], { cwd, env });
    expect(none.code).toBe(1);
    expect(registry.requests).toHaveLength(count);
  });

  it('writes need CADRE_API_KEY', async () => {
    const run = await runCli(['experts', 'deprecate', '@acme/writer@1.0.0'], {
      cwd,
      env: { CADRE_URL: registry.url },
    });
    expect(run.code).toBe(1);
    expect(registry.requests).toEqual([]);
  });

  it('a rejected API key is a user error (exit 1)', async () => {
    const run = await runCli(['experts', 'disable', '@acme/writer@1.0.0'], {
      cwd,
      env: { ...env, CADRE_API_KEY: 'wrong' },
    });
    expect(run).toMatchObject({
      code: 1,
      stderr: 'error: registry answered 401 Unauthorized: missing or invalid API key\n',
    });
  });

  it('delete needs an explicit version and confirmation', async () => {
    const noVersion = await runCli(['experts', 'delete', '@acme/writer', '--yes'], { cwd, env });
    expect(noVersion.code).toBe(1);
    expect(noVersion.stderr).toContain('names no version');
    const noTty = await runCli(['experts', 'delete', '@acme/writer@1.0.0'], { cwd, env });
    expect(noTty).toMatchObject({ code: 1 });
    expect(noTty.stderr).toContain('hint: add --yes');
    const declined = await runCli(['experts', 'delete', '@acme/writer@1.0.0'], {
      cwd,
      env,
      confirm: async () => false,
    });
    expect(declined.code).toBe(1);
    expect(registry.requests).toEqual([]);

    const asked: string[] = [];
    const confirmed = await runCli(['experts', 'delete', '@acme/writer@1.0.0'], {
      cwd,
      env,
      confirm: async (q) => {
        asked.push(q);
        return true;
      },
    });
    expect(confirmed).toMatchObject({ code: 0, stdout: 'deleted @acme/writer@1.0.0\n' });
    expect(asked).toEqual(['Delete @acme/writer@1.0.0? Its version number can never be published again.']);
    expect(last()).toMatchObject({ method: 'DELETE', url: '/registry/experts/%40acme%2Fwriter%401.0.0' });
    const gone = await runCli(['experts', 'info', '@acme/writer@1.0.0'], { cwd, env });
    expect(gone.code).toBe(1);
    expect((await runCli(['experts', 'delete', '@acme/writer@2.0.0', '-y'], { cwd, env })).code).toBe(0);
  });
});
