import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
