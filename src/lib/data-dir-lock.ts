import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';

/** Another live process holds the data directory. */
export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `another Cadre server is already running on the data directory ${dataDir}: stop it first, or give ` +
        'this one its own CADRE_DATA_DIR (one embedded database serves one process)',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

/**
 * Claims the data directory for this process's life (docs/operations.md, "One server per data
 * directory"). The lock is a listening Unix socket: only one process can listen on a name, and the kernel
 * closes it the moment its holder dies however it dies (SIGKILL, a crash, OOM), so a crash never blocks the
 * next start and there is no pid to check (pids are reused). On Linux the socket lives in the abstract
 * namespace, named after the directory's real path: no file at all, nothing to clean up. Elsewhere it is a
 * socket file in the directory; a file nobody listens on (connection refused) is a dead holder's, removed.
 */
export async function lockDataDir(
  dataDir: string,
  options: { abstract?: boolean } = {},
): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const real = realpathSync(dataDir);
  const abstract = options.abstract ?? process.platform === 'linux';
  const name = abstract
    ? `\0cadre-data-dir:${createHash('sha256').update(real).digest('hex')}`
    : join(real, 'cadre.lock.sock');
  let server: Server;
  try {
    server = await listenOn(name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    if (abstract || (await holderAlive(name))) throw new DataDirLockedError(real);
    rmSync(name, { force: true });
    server = await listenOn(name).catch((again: NodeJS.ErrnoException) => {
      throw again.code === 'EADDRINUSE' ? new DataDirLockedError(real) : again;
    });
  }
  // Held, not waited on: the lock never keeps the process alive by itself.
  server.unref();
  return { release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function listenOn(name: string): Promise<Server> {
  // Nobody is meant to talk to the lock: a connection is closed at once.
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(name, () => resolve(server));
  });
}

function holderAlive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
