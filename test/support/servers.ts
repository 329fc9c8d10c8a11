import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { findPrograms, missingProgramMessage } from '../../scripts/test-programs.mjs';
import { release, track } from './leftovers.js';

/** A free TCP port on loopback (the kernel picks it; a short race with other processes is acceptable). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 20_000,
  exited?: () => string | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    // A program that died will never become ready: say so at once instead of waiting out the timeout.
    const death = exited?.();
    if (death) throw new Error(`${what} exited before it was ready (${death})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not become ready in ${timeoutMs} ms`);
}

export interface RedisServer {
  url: string;
  /** SIGSTOP: the server hangs (connections stay open, commands never answer) until `resume`. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/**
 * A real redis-server of this test's own, on a free loopback port, with its own directory, no persistence.
 * Fails at once when redis-server is not installed; when it never becomes ready, stops it and removes its
 * directory before failing.
 */
export async function startRedis(options: { readyTimeoutMs?: number } = {}): Promise<RedisServer> {
  const program = findPrograms().redis;
  if (!program) throw new Error(missingProgramMessage('redis'));
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cadre-redis-'));
  const untrackDir = track({ kind: 'dir', path: dir });
  const child: ChildProcess = spawn(
    program,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const untrackProcess = child.pid
    ? track({ kind: 'process', pid: child.pid, command: String(port) })
    : () => undefined;
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  const stop = async () => {
    if (child.pid && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    untrackProcess();
    rmSync(dir, { recursive: true, force: true });
    untrackDir();
  };
  const url = `redis://127.0.0.1:${port}`;
  try {
    await until(
      'redis-server',
      async () => {
        const client = new Redis(url, {
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        client.on('error', () => undefined);
        try {
          await client.connect();
          return (await client.ping()) === 'PONG';
        } finally {
          client.disconnect();
        }
      },
      options.readyTimeoutMs,
      () =>
        spawnError?.message ??
        (child.exitCode !== null || child.signalCode !== null
          ? `exit ${child.exitCode ?? child.signalCode}`
          : undefined),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pause: () => child.kill('SIGSTOP'), resume: () => child.kill('SIGCONT'), stop };
}

export interface PostgresServer {
  url: string;
  /** Fast shutdown: connections are terminated, as in an outage. */
  stop(): void;
  start(): Promise<void>;
  destroy(): void;
}

const asPostgres = (command: string) => execFileSync('su', ['postgres', '-c', command], { stdio: 'pipe' });

/**
 * A PostgreSQL server of this test's own (initdb into a temp dir, a free port, run as the postgres user), so
 * the test may stop and start it without touching the shared server. Fails at once when PostgreSQL's server
 * programs are not installed; a failed start stops the server and removes its directory.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = findPrograms().postgres;
  if (!bin) throw new Error(missingProgramMessage('postgres'));
  if (process.getuid?.() !== 0)
    throw new Error('startPostgres runs initdb as the postgres user: run as root');
  const port = await freePort();
  const root = mkdtempSync(join(tmpdir(), 'cadre-pg-'));
  const data = join(root, 'data');
  const untrackDir = track({ kind: 'dir', path: root });
  const untrackServer = track({ kind: 'postgres', pgCtl: `${bin}/pg_ctl`, data });
  const destroy = () => {
    release({ kind: 'postgres', pgCtl: `${bin}/pg_ctl`, data });
    untrackServer();
    rmSync(root, { recursive: true, force: true });
    untrackDir();
  };
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off -c max_connections=200`;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const start = async () => {
    asPostgres(`${bin}/pg_ctl -D ${data} -l ${root}/log -w -o "${options}" start`);
    await until('PostgreSQL', async () => {
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.query('SELECT 1');
        return true;
      } finally {
        await client.end().catch(() => undefined);
      }
    });
  };
  try {
    chownSync(root, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), -1);
    asPostgres(`${bin}/initdb -D ${data} -A trust -U postgres --no-sync`);
    await start();
  } catch (error) {
    destroy();
    throw error;
  }
  return {
    url,
    stop: () => {
      asPostgres(`${bin}/pg_ctl -D ${data} -m fast -w stop`);
    },
    start,
    destroy,
  };
}
