import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { findPrograms, missingProgramMessage } from '../scripts/test-programs.mjs';
import { freePort } from './support/servers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The suite's own PostgreSQL server (this file), for the *.pg.test.ts files (support/postgres-env.ts). */
    ownPostgresUrl: string;
  }
}

/**
 * Global set-up of the "PostgreSQL (own server)" project (vitest.config.ts): when DATABASE_URL is unset,
 * the *.pg.test.ts files (several processes on one database) run on a PostgreSQL server of the run's own,
 * started here from the programs `npm test`'s pretest step installs, in a private directory on a free
 * loopback port. Vitest runs this only when such a file is part of the run; the teardown stops the server
 * and removes its directory whatever the tests did. initdb refuses to run as root: as root, the server runs
 * as the `postgres` user (Debian's package creates it).
 */
export async function setup(project: TestProject): Promise<() => void> {
  const bin = findPrograms().postgres;
  if (!bin) throw new Error(missingProgramMessage('postgres'));
  const asRoot = process.getuid?.() === 0;
  const run = (program: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : program, asRoot ? ['-u', 'postgres', '--', program, ...args] : args, {
      stdio: 'pipe',
    });
  const root = mkdtempSync(join(tmpdir(), 'cadre-test-postgres-'));
  const data = join(root, 'data');
  const stop = () => {
    try {
      run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Not started (a failed start-up), or already stopped.
    }
    rmSync(root, { recursive: true, force: true });
  };
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    if (asRoot) chownSync(root, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), -1);
    run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    // As CI's server (.ci/run): several Cadre processes with their pools share it.
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off -c max_connections=400`;
    run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(root, 'log'), '-w', '-o', options, 'start']);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const version = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]
      ?.server_version;
    await client.end();
    console.log(
      `PostgreSQL ${version} (the suite's own server, 127.0.0.1:${port}) runs the *.pg.test.ts files; it is stopped and removed when the run ends`,
    );
  } catch (error) {
    const log = (() => {
      try {
        return execFileSync('tail', ['-n', '5', join(root, 'log')]).toString();
      } catch {
        return '';
      }
    })();
    stop();
    throw new Error(
      `could not start the suite's own PostgreSQL server for the *.pg.test.ts files: ${error}\n${log}`,
    );
  }
  project.provide('ownPostgresUrl', url);
  return stop;
}
