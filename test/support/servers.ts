import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';

/** A free TCP port on loopback (the kernel picks it; a short race with other processes is acceptable). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not become ready in ${timeoutMs} ms`);
}

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/** A real redis-server of this test's own, on a free loopback port, with its own directory, no persistence. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cadre-redis-'));
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  await until('redis-server', async () => {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } finally {
      client.disconnect();
    }
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PostgresServer {
  url: string;
  /** Fast shutdown: connections are terminated, as in an outage. */
  stop(): void;
  start(): Promise<void>;
  destroy(): void;
}

const PG_BIN = (() => {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
})();

export const canStartPostgres = (): boolean => Boolean(PG_BIN) && process.getuid?.() === 0;

const asPostgres = (command: string) => execFileSync('su', ['postgres', '-c', command], { stdio: 'pipe' });

/**
 * A PostgreSQL server of this test's own (initdb into a temp dir, a free port, run as the postgres user), so
 * the test may stop and start it without touching the shared server.
 */
export async function startPostgres(): Promise<PostgresServer> {
  if (!PG_BIN) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql');
  const port = await freePort();
  const root = mkdtempSync(join(tmpdir(), 'cadre-pg-'));
  chownSync(root, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), -1);
  const data = join(root, 'data');
  asPostgres(`${PG_BIN}/initdb -D ${data} -A trust -U postgres --no-sync`);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off -c max_connections=200`;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const start = async () => {
    asPostgres(`${PG_BIN}/pg_ctl -D ${data} -l ${root}/log -w -o "${options}" start`);
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
  await start();
  return {
    url,
    stop: () => {
      asPostgres(`${PG_BIN}/pg_ctl -D ${data} -m fast -w stop`);
    },
    start,
    destroy: () => {
      try {
        asPostgres(`${PG_BIN}/pg_ctl -D ${data} -m immediate -w stop`);
      } catch {
        // already stopped
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
