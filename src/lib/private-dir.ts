import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Makes the embedded data directory private to the user running Cadre: it holds the database (API-key
 * digests, password hashes, encrypted tokens) and bootstrap.json. Files created from now on are private
 * (umask 077, for the whole process: nothing Cadre writes is meant for other users), and what an older
 * version left readable or writable by others is tightened (directories 0700, files 0600).
 */
export function makePrivateDataDir(dir: string): void {
  process.umask(0o077);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir);
}

/**
 * Tightens what is already in the directory. Called again once the embedded database is open: PGlite
 * writes its initial files with explicit modes (0666), which the umask does not narrow.
 */
export function tighten(path: string): void {
  const stats = statSync(path);
  if (stats.isSymbolicLink()) return;
  if (stats.isDirectory()) {
    if ((stats.mode & 0o077) !== 0) chmodSync(path, 0o700);
    for (const name of readdirSync(path)) tighten(join(path, name));
  } else if ((stats.mode & 0o077) !== 0) {
    chmodSync(path, stats.mode & 0o700);
  }
}
