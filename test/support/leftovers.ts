import { execFileSync } from 'node:child_process';
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

/**
 * What a test started outside its own process: a program, a PostgreSQL server (pg_ctl daemonizes it, so it
 * is no child of anyone), or a temporary directory. Each helper records what it starts in a file under
 * the run's registry directory and deletes the record once it has stopped it; whatever is still recorded
 * when the run ends (a test failed half-way, a worker died) is stopped and removed by the global teardown
 * (test/global-setup.ts). Only recorded resources are touched: other runs on the machine are left alone.
 */
export type Leftover =
  /** `command` must appear in /proc/<pid>/cmdline: a reused pid is never killed. */
  | { kind: 'process'; pid: number; command: string }
  | { kind: 'postgres'; pgCtl: string; data: string }
  | { kind: 'dir'; path: string };

export const REGISTRY_ENV = 'CADRE_TEST_LEFTOVERS';

let counter = 0;

/** Records a resource; call the returned function once it is stopped or removed. */
export function track(entry: Leftover): () => void {
  const dir = process.env[REGISTRY_ENV] ?? join(tmpdir(), 'cadre-test-leftovers-untracked');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}-${++counter}.json`);
  writeFileSync(file, JSON.stringify(entry));
  return () => rmSync(file, { force: true });
}

function processAlive(pid: number, command: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(command);
  } catch {
    return false;
  }
}

/** Stops and removes one resource now; never throws (it may already be gone). */
export function release(entry: Leftover): void {
  try {
    if (entry.kind === 'process') {
      if (processAlive(entry.pid, entry.command)) process.kill(entry.pid, 'SIGKILL');
    } else if (entry.kind === 'postgres') {
      if (existsSync(join(entry.data, 'postmaster.pid'))) {
        const command = `${entry.pgCtl} -D ${entry.data} -m immediate -w stop`;
        const asPostgres = process.getuid?.() === 0;
        execFileSync(
          asPostgres ? 'su' : entry.pgCtl,
          asPostgres ? ['postgres', '-c', command] : command.split(' ').slice(1),
          {
            stdio: 'ignore',
          },
        );
      }
    } else rmSync(entry.path, { recursive: true, force: true });
  } catch {
    // Already stopped or removed.
  }
}

/** The teardown: releases everything still recorded (processes first, then directories). */
export function releaseAll(registry: string): Leftover[] {
  if (!existsSync(registry)) return [];
  const entries = readdirSync(registry).map(
    (name) => JSON.parse(readFileSync(join(registry, name), 'utf8')) as Leftover,
  );
  const order = (entry: Leftover) => (entry.kind === 'dir' ? 1 : 0);
  for (const entry of [...entries].sort((a, b) => order(a) - order(b))) release(entry);
  rmSync(registry, { recursive: true, force: true });
  return entries;
}

/** What a test run owns: its record of started resources and its temporary directory (TMPDIR). */
export interface TestRun {
  dir: string;
  registry: string;
  temp: string;
  previousTmpdir: string | undefined;
}

const describe = (entry: Leftover): string =>
  entry.kind === 'process'
    ? `process ${entry.pid} (${entry.command}), still running`
    : entry.kind === 'postgres'
      ? `PostgreSQL server ${entry.data}, still running`
      : `directory ${entry.path}`;

/**
 * Starts a run (the global set-up, before any worker is forked): a directory of its own holding the record
 * of started resources and the run's temporary directory, which TMPDIR then names, so every temporary file
 * a test or a program it starts makes (os.tmpdir(), mkdtemp) is the run's and can be found at the end,
 * whether or not its helper recorded it. Mode 1777 like /tmp: PostgreSQL servers run as `postgres`.
 */
export function startRun(): TestRun {
  const previousTmpdir = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'cadre-test-run-'));
  const registry = join(dir, 'leftovers');
  const temp = join(dir, 'tmp');
  mkdirSync(registry);
  mkdirSync(temp);
  chmodSync(dir, 0o755);
  chmodSync(temp, 0o1777);
  process.env[REGISTRY_ENV] = registry;
  process.env.TMPDIR = temp;
  return { dir, registry, temp, previousTmpdir };
}

/**
 * What programs keep in the temporary directory on purpose, for every later run: not a test's leftover
 * (removed with the run's directory all the same). tsx's compile cache: the embedded database's worker
 * thread compiles through tsx when tests import the sources (src/db/embedded/client.ts).
 */
const CACHES = [/^tsx-\d+$/];

/**
 * Ends a run: stops and removes what is still recorded and whatever is left in the run's temporary
 * directory, removes the run's own directory, and returns what it found (empty: nothing was left behind).
 */
export function endRun(run: TestRun): string[] {
  if (run.previousTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = run.previousTmpdir;
  const recorded = releaseAll(run.registry);
  const found = recorded.map(describe);
  const recordedPaths = new Set(recorded.map((entry) => (entry.kind === 'dir' ? entry.path : '')));
  for (const name of existsSync(run.temp) ? readdirSync(run.temp) : []) {
    const path = join(run.temp, name);
    if (!recordedPaths.has(path) && !CACHES.some((cache) => cache.test(name)))
      found.push(`${path} (in the run's temporary directory)`);
    rmSync(path, { recursive: true, force: true });
  }
  rmSync(run.dir, { recursive: true, force: true });
  return found;
}
