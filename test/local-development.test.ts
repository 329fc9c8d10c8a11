import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { track } from './support/leftovers.js';
import { ROOT, startCadre } from './support/process.js';

/** A program of the test's own, its output gathered; recorded until it exits (test/support/leftovers.ts). */
function launch(command: string, args: string[], env: Record<string, string>, detached = false) {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      CADRE_OVERLOAD_EVENT_LOOP_DELAY_MS: '60000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  if (child.pid) child.once('exit', track({ kind: 'process', pid: child.pid, command }));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  return { child, output: () => output };
}

async function waitFor(output: () => string, pattern: RegExp, child: ChildProcess): Promise<RegExpExecArray> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    const match = pattern.exec(output());
    if (match) return match;
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never printed ${pattern}:\n${output()}`);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'cadre-dev-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('local development', () => {
  it('Ctrl-C (SIGINT) to npm start stops the server promptly', async () => {
    const npm = launch('npm', ['start', '--silent'], { CADRE_DATA_DIR: dataDir });
    const server = Number((await waitFor(npm.output, /"pid":(\d+).*"msg":"Cadre listening/, npm.child))[1]);
    try {
      const started = Date.now();
      npm.child.kill('SIGINT');
      for (let waited = 0; waited < 10_000 && (alive(server) || npm.child.exitCode === null); waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(alive(server), npm.output()).toBe(false);
      expect(npm.child.exitCode).not.toBeNull();
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(npm.output()).toContain('"signal":"SIGINT"');
      // The quick start (npm start, no setting) says in words where to sign in, and how to allow local targets.
      expect(npm.output()).toMatch(
        /Cadre is running: open http:\/\/127\.0\.0\.1:\d+ and sign in as demo@localhost/,
      );
      expect(npm.output()).toContain('start with CADRE_DEV=1');
    } finally {
      if (alive(server)) process.kill(server, 'SIGKILL');
      if (npm.child.exitCode === null) npm.child.kill('SIGKILL');
    }
  }, 90_000);

  it('CADRE_DEV=1 prints who to sign in as, where the credentials are, and the next command; never a secret', async () => {
    const dev = await startCadre({ CADRE_DATA_DIR: dataDir, CADRE_DEV: '1' });
    try {
      const bootstrap = JSON.parse(await readFile(join(dataDir, 'bootstrap.json'), 'utf8')) as {
        owner: { password: string };
        apiKey: string;
      };
      const banner = await waitFor(
        dev.output,
        /Cadre is running: open ([^\s\\]+) and sign in as ([^\s\\]+)/,
        dev.child,
      );
      expect(banner[1]).toBe(dev.url);
      expect(banner[2]).toBe('demo@localhost');
      expect(dev.output()).toContain(join(dataDir, 'bootstrap.json'));
      expect(dev.output()).toContain('cadre login');
      expect(dev.output()).not.toContain(bootstrap.owner.password);
      expect(dev.output()).not.toContain(bootstrap.apiKey);
      // Not a terminal: still one JSON object per line, for whatever reads the log.
      for (const line of dev.output().trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
    } finally {
      await dev.stop();
    }
  }, 90_000);

  it('on a terminal the log is readable lines (the banner among them), not JSON', async () => {
    // script(1) runs the server on a pseudo-terminal, as a developer's shell does.
    const tty = launch(
      'script',
      ['-qfec', `${process.execPath} dist/main.js`, '/dev/null'],
      { CADRE_DATA_DIR: dataDir, CADRE_DEV: '1', TERM: 'dumb' },
      true,
    );
    try {
      await waitFor(tty.output, /Cadre is running: open http:\/\/127\.0\.0\.1:\d+ and sign in as/, tty.child);
      await waitFor(tty.output, /Cadre listening on/, tty.child);
      expect(tty.output()).not.toMatch(/\{"level":/);
      expect(tty.output()).toMatch(/INFO/);
    } finally {
      // The whole group: script and the server it runs on the terminal.
      if (tty.child.pid && tty.child.exitCode === null) process.kill(-tty.child.pid, 'SIGTERM');
      if (tty.child.exitCode === null) await once(tty.child, 'exit');
    }
  }, 90_000);
});
