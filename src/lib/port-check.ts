import { createServer } from 'node:net';

/** The port is taken (or not ours to bind): the server must not start. */
export class PortUnavailableError extends Error {
  constructor(host: string, port: number, code: string) {
    super(
      `cannot listen on ${host}:${port} (${code}): another process uses the port, or it needs privileges; ` +
        'set PORT (or HOST) to a free one',
    );
    this.name = 'PortUnavailableError';
  }
}

/**
 * Binds the address once and lets it go: start-up checks the port before it opens the database, so a
 * server that could not serve never touches the data (a short race with another process remains, and the
 * real listen then fails as it would anyway). Port 0 asks for any free port: nothing to check.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(new PortUnavailableError(host, port, error.code ?? error.message)),
    );
    probe.listen({ host, port, exclusive: true }, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
