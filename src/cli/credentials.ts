import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, EXIT_USER } from './errors.js';
import type { CliIo } from './io.js';

/** What `cadre login` keeps per server URL. */
export interface StoredLogin {
  key: string;
  apiKeyId: string;
  organization: { id: string; slug: string; name: string } | null;
  createdAt: string;
}
interface CredentialsFile {
  servers: Record<string, StoredLogin>;
}

/**
 * `$XDG_CONFIG_HOME/cadre/credentials.json` (default `~/.config/cadre/credentials.json`): one key per server
 * URL, readable by its owner only (0600, in a 0700 directory). Keys are stored by the URL without a trailing
 * slash, so `http://h:3000/` and `http://h:3000` share one.
 */
export function credentialsPath(io: CliIo): string {
  const base = io.env.XDG_CONFIG_HOME || (io.env.HOME ? join(io.env.HOME, '.config') : undefined);
  if (!base)
    throw new CliError('cannot tell where to keep credentials', EXIT_USER, 'set HOME or XDG_CONFIG_HOME');
  return join(base, 'cadre', 'credentials.json');
}

const serverKey = (url: string) => url.replace(/\/+$/, '');

function readFile(io: CliIo): CredentialsFile {
  try {
    const parsed = JSON.parse(readFileSync(credentialsPath(io), 'utf8')) as Partial<CredentialsFile>;
    return { servers: parsed.servers ?? {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { servers: {} };
    throw new CliError(`cannot read ${credentialsPath(io)}: ${(error as Error).message}`, EXIT_USER);
  }
}

function writeFile(io: CliIo, file: CredentialsFile): void {
  const path = credentialsPath(io);
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync's mode applies only when it creates the file: an existing one is narrowed here.
  chmodSync(path, 0o600);
}

/** The login kept for `url`; none when there is no config directory to keep one in (no HOME). */
export const storedLogin = (io: CliIo, url: string): StoredLogin | undefined =>
  io.env.XDG_CONFIG_HOME || io.env.HOME ? readFile(io).servers[serverKey(url)] : undefined;

export function storeLogin(io: CliIo, url: string, login: StoredLogin): void {
  const file = readFile(io);
  file.servers[serverKey(url)] = login;
  writeFile(io, file);
}

export function forgetLogin(io: CliIo, url: string): void {
  const file = readFile(io);
  delete file.servers[serverKey(url)];
  writeFile(io, file);
}
