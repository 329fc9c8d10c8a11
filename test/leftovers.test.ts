import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endRun, REGISTRY_ENV, releaseAll, startRun, track } from './support/leftovers.js';
import { startRedis } from './support/servers.js';

let scratch: string;
const saved = { path: process.env.PATH, registry: process.env[REGISTRY_ENV], tmpdir: process.env.TMPDIR };
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cadre-leftovers-test-'));
});
afterEach(() => {
  process.env.PATH = saved.path;
  process.env[REGISTRY_ENV] = saved.registry;
  process.env.TMPDIR = saved.tmpdir;
  rmSync(scratch, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
};

describe('test helpers leave nothing behind', () => {
  it('a redis-server that never becomes ready is stopped and its directory removed before the helper fails', async () => {
    process.env[REGISTRY_ENV] = join(scratch, 'registry');
    // A real process named redis-server that listens on nothing: started, never ready.
    const bin = join(scratch, 'bin');
    mkdirSync(bin);
    const started = join(scratch, 'started.json');
    writeFileSync(
      join(bin, 'redis-server'),
      `#!${process.execPath}\n` +
        `require('node:fs').writeFileSync(${JSON.stringify(started)}, JSON.stringify({ pid: process.pid, dir: process.argv[7] }));\n` +
        'setInterval(() => {}, 1000);\n',
    );
    chmodSync(join(bin, 'redis-server'), 0o755);
    process.env.PATH = `${bin}:${saved.path}`;

    await expect(startRedis({ readyTimeoutMs: 1500 })).rejects.toThrow(
      'redis-server did not become ready in 1500 ms',
    );
    const { pid, dir } = JSON.parse(readFileSync(started, 'utf8')) as { pid: number; dir: string };
    expect(dir).toMatch(/cadre-redis-/);
    expect(alive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(join(scratch, 'registry'))).toEqual([]);
  });

  it('a missing redis-server fails at once with the command that installs it', async () => {
    process.env.PATH = join(scratch, 'empty');
    const started = Date.now();
    await expect(startRedis()).rejects.toThrow(
      'redis-server is not installed, and this test starts it. Run `npm test` as root (its pretest step installs it), or install it as root: apt-get update && apt-get install -y redis-server',
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('the run teardown stops every recorded process and removes every recorded directory', async () => {
    const registry = join(scratch, 'registry');
    process.env[REGISTRY_ENV] = registry;
    // What a test that failed half-way leaves: a running program and a directory, still recorded.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'cadre-leftover-probe'], {
      stdio: 'ignore',
    });
    const exited = once(child, 'exit');
    track({ kind: 'process', pid: child.pid!, command: 'cadre-leftover-probe' });
    const dir = mkdtempSync(join(tmpdir(), 'cadre-leftover-dir-'));
    track({ kind: 'dir', path: dir });
    // A record whose pid now belongs to something else is not killed: the command must match.
    track({ kind: 'process', pid: process.pid, command: 'not-this-process' });

    expect(releaseAll(registry)).toHaveLength(3);
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(registry)).toBe(false);
  });

  it("the end of a run finds what a passing test left in the run's temporary directory, removes it and names it", () => {
    process.env.TMPDIR = scratch;
    const run = startRun();
    // Every temporary directory made during the run is the run's (TMPDIR), recorded by its helper or not.
    expect(tmpdir()).toBe(run.temp);
    const forgotten = mkdtempSync(join(tmpdir(), 'cadre-cli-'));
    writeFileSync(join(forgotten, 'cadre.toml'), '');
    const cleaned = mkdtempSync(join(tmpdir(), 'cadre-cli-'));
    rmSync(cleaned, { recursive: true });
    const recorded = mkdtempSync(join(tmpdir(), 'cadre-redis-'));
    track({ kind: 'dir', path: recorded });

    const left = endRun(run);
    expect(left.sort()).toEqual(
      [`directory ${recorded}`, `${forgotten} (in the run's temporary directory)`].sort(),
    );
    expect(process.env.TMPDIR).toBe(scratch);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('a run whose tests cleaned up after themselves ends with nothing found', () => {
    process.env.TMPDIR = scratch;
    const run = startRun();
    rmSync(mkdtempSync(join(tmpdir(), 'cadre-cli-')), { recursive: true });
    expect(endRun(run)).toEqual([]);
    expect(readdirSync(scratch)).toEqual([]);
  });
});
