import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, keyPath, published, uniqueName } from '../../test/registry/helpers.js';
import { runCli, tempProject } from '../../test/support/cli-harness.js';
import { createOrganization, type TestOrganization } from '../../test/support/fixtures.js';
import { startServer, type TestServer } from '../../test/support/server.js';
import { type Lockfile, parseLockfile } from './lockfile.js';

// Against a real Cadre: a chain root → mid → leaf (mid delegates to leaf by bare name, so the lock pins
// whichever version held latest) and a diamond (root → a, b → leaf@1.0.0).
let server: TestServer;
let org: TestOrganization;
let leaf: string;
let mid: string;
let side: string;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'personal');
  leaf = uniqueName('lock-leaf');
  mid = uniqueName('lock-mid');
  side = uniqueName('lock-side');
  await published(server, org.ownerKey, expertBody(leaf, '1.0.0'));
  await published(server, org.ownerKey, expertBody(leaf, '1.1.0'));
  await published(server, org.ownerKey, expertBody(mid, '2.0.0', { delegates: [leaf] }));
  await published(server, org.ownerKey, expertBody(side, '1.0.0', { delegates: [`${leaf}@1.0.0`] }));
  env = { CADRE_URL: server.url, CADRE_API_KEY: org.ownerKey };
});
afterAll(() => server.close());

const toml = (delegates: string[]) => `
[experts."lock-root"]
version = "0.1.0"
minRuntimeVersion = "0.1.0"
description = "Root"
instruction = "Delegate."
delegates = ${JSON.stringify(delegates)}
`;

const readLock = (dir: string): Lockfile => {
  const parsed = parseLockfile(readFileSync(join(dir, 'cadre.lock'), 'utf8'));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.lock;
};

describe('cadre lock', () => {
  it('resolves delegates transitively to exact versions with their integrity, sorted and stable', async () => {
    const dir = tempProject({ 'cadre.toml': toml([`${mid}@2.0.0`, side]) });
    const run = await runCli(['lock'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('locked 1 root and 4 registry versions');
    const lock = readLock(dir);
    expect(lock.lockfileVersion).toBe(1);
    expect(lock.roots['lock-root']).toEqual({
      version: '0.1.0',
      source: 'config',
      delegates: { [`${mid}@2.0.0`]: `${mid}@2.0.0`, [side]: `${side}@1.0.0` },
    });
    expect(Object.keys(lock.experts).sort()).toEqual(
      [`${leaf}@1.0.0`, `${leaf}@1.1.0`, `${mid}@2.0.0`, `${side}@1.0.0`].sort(),
    );
    expect(lock.experts[`${mid}@2.0.0`]!.delegates).toEqual({ [leaf]: `${leaf}@1.1.0` });
    const leafRead = await server.request<{ data: { expert: { integrity: string } } }>(
      'GET',
      keyPath(`${leaf}@1.0.0`),
    );
    expect(lock.experts[`${leaf}@1.0.0`]!.integrity).toBe(leafRead.body.data.expert.integrity);

    // Deterministic: the same registry gives the same bytes; keys are sorted at every level.
    const first = readFileSync(join(dir, 'cadre.lock'), 'utf8');
    expect((await runCli(['lock'], { cwd: dir, env })).code).toBe(0);
    expect(readFileSync(join(dir, 'cadre.lock'), 'utf8')).toBe(first);
    expect(first.indexOf('"experts"')).toBeLessThan(first.indexOf('"lockfileVersion"'));
    expect(first.endsWith('}\n')).toBe(true);

    const verified = await runCli(['verify'], { cwd: dir, env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toContain('cadre.lock verified: 4 versions match the registry (1 root)');
  });

  it('locks a published version given by exact key, and refuses a key without a version', async () => {
    const dir = tempProject({});
    const run = await runCli(['lock', `${side}@1.0.0`], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const lock = readLock(dir);
    expect(lock.roots[side]).toEqual({
      version: '1.0.0',
      source: 'registry',
      delegates: { [`${leaf}@1.0.0`]: `${leaf}@1.0.0` },
    });
    expect(Object.keys(lock.experts).sort()).toEqual([`${leaf}@1.0.0`, `${side}@1.0.0`].sort());
    const floating = await runCli(['lock', side], { cwd: tempProject({}), env });
    expect(floating.code).toBe(1);
    expect(floating.stderr).toContain('names no exact version');
  });

  it('refuses to lock a delegate that does not resolve, naming every problem, and writes nothing', async () => {
    const dir = tempProject({ 'cadre.toml': toml([`${leaf}@9.9.9`, `${uniqueName('nobody')}@1.0.0`]) });
    const run = await runCli(['lock'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr.match(/✗ /g)).toHaveLength(2);
    expect(run.stderr).toContain(`${leaf}@9.9.9: not in the registry`);
    expect(run.stderr).toContain('cannot lock: 2 problems; nothing written');
  });
});

describe('cadre verify', () => {
  it('fails once a locked version is disabled, naming it (exit 1)', async () => {
    const name = uniqueName('lock-disable');
    await published(server, org.ownerKey, expertBody(name, '1.0.0'));
    const dir = tempProject({ 'cadre.toml': toml([`${name}@1.0.0`, `${mid}@2.0.0`]) });
    expect((await runCli(['lock'], { cwd: dir, env })).code).toBe(0);
    expect((await runCli(['verify'], { cwd: dir, env })).code).toBe(0);
    const disabled = await runCli(['experts', 'disable', `${name}@1.0.0`], { cwd: dir, env });
    expect(disabled.code, disabled.stderr).toBe(0);
    const run = await runCli(['verify'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stdout.trim()).toBe(`✗ ${name}@1.0.0: disabled by its owner`);
    expect(run.stderr).toContain('1 problem in');
    const json = await runCli(['verify', '--json'], { cwd: dir, env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      checked: 3,
      problems: [`${name}@1.0.0: disabled by its owner`],
    });
  });

  it('fails on a digest that differs from the registry (the lock edited), and on a deleted version', async () => {
    const name = uniqueName('lock-delete');
    await published(server, org.ownerKey, expertBody(name, '1.0.0'));
    const dir = tempProject({ 'cadre.toml': toml([`${name}@1.0.0`, `${side}@1.0.0`]) });
    expect((await runCli(['lock'], { cwd: dir, env })).code).toBe(0);
    const path = join(dir, 'cadre.lock');
    const lock = readLock(dir);
    const original = lock.experts[`${side}@1.0.0`]!.integrity;
    const forged = `sha256-${Buffer.alloc(32, 7).toString('base64')}`;
    lock.experts[`${side}@1.0.0`]!.integrity = forged;
    writeFileSync(path, JSON.stringify(lock));
    const deleted = await server.request('DELETE', keyPath(`${name}@1.0.0`), { key: org.ownerKey });
    expect(deleted.status, deleted.text).toBe(200);

    const run = await runCli(['verify'], { cwd: dir, env });
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toEqual([
      ...[
        `✗ ${name}@1.0.0: not in the registry (deleted, or never published)`,
        `✗ ${side}@1.0.0: digest changed: locked ${forged}, the registry has ${original}`,
      ].sort((a, b) => (a.slice(2) < b.slice(2) ? -1 : 1)),
    ]);
    expect(run.stderr).toContain('2 problems in');
  });

  it('fails on a version the operator took down, with the reason, and on a config changed since the lock', async () => {
    const name = uniqueName('lock-takedown');
    await published(server, org.ownerKey, expertBody(name, '1.0.0'));
    const dir = tempProject({ 'cadre.toml': toml([`${name}@1.0.0`]) });
    expect((await runCli(['lock'], { cwd: dir, env })).code).toBe(0);
    const takedown = await server.admin(
      'POST',
      `/admin/v1/registry/experts/${encodeURIComponent(`${name}@1.0.0`)}/takedown`,
      { reason: 'Malware (ticket 12)' },
    );
    expect(takedown.status, takedown.text).toBe(200);
    writeFileSync(join(dir, 'cadre.toml'), toml([`${name}@1.0.0`, side]));
    const run = await runCli(['verify'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`✗ ${name}@1.0.0: taken down by the operator (`);
    expect(run.stdout).toContain('Malware (ticket 12)');
    expect(run.stdout).toContain('✗ lock-root: the config changed since it was locked (run cadre lock)');
  });

  it('fails when a floating delegate (a name, a tag) of a locked version now resolves to another version', async () => {
    const a = uniqueName('float-a');
    const b = uniqueName('float-b');
    await published(server, org.ownerKey, expertBody(a, '1.0.0'));
    await published(server, org.ownerKey, expertBody(b, '1.0.0', { delegates: [a] }));
    const dir = tempProject({ 'cadre.toml': toml([a, `${b}@1.0.0`]) });
    expect((await runCli(['lock'], { cwd: dir, env })).code).toBe(0);
    expect((await runCli(['verify'], { cwd: dir, env })).code).toBe(0);

    await published(server, org.ownerKey, expertBody(a, '1.1.0'));
    const run = await runCli(['verify'], { cwd: dir, env });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain(
      `✗ ${b}@1.0.0: delegate "${a}" now resolves to ${a}@1.1.0, locked ${a}@1.0.0 (run cadre lock)`,
    );
    expect(run.stdout).toContain(
      `✗ lock-root: delegate "${a}" now resolves to ${a}@1.1.0, locked ${a}@1.0.0 (run cadre lock)`,
    );
    expect(run.stderr).toContain('2 problems in');
    // An exact delegate never floats: locking again settles it.
    expect((await runCli(['lock'], { cwd: dir, env })).code).toBe(0);
    expect((await runCli(['verify'], { cwd: dir, env })).code).toBe(0);
  });

  it('refuses a lock of another version, or none at all, with a hint', async () => {
    const dir = tempProject({ 'cadre.toml': toml([]) });
    const none = await runCli(['verify'], { cwd: dir, env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no cadre.lock at');
    expect(none.stderr).toContain('cadre lock');
    writeFileSync(join(dir, 'cadre.lock'), JSON.stringify({ lockfileVersion: 2, roots: {}, experts: {} }));
    const future = await runCli(['verify'], { cwd: dir, env });
    expect(future.code).toBe(1);
    expect(future.stderr).toContain('lockfileVersion 2 is not supported: this cadre reads version 1');
  });
});
