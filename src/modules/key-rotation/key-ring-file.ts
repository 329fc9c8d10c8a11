import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyEntry, type KeyRing, parseKeyRing } from '../../lib/key-ring.js';

export const keyRingPath = (dataDir: string) => join(dataDir, 'encryption-keys');

/**
 * Embedded mode without CADRE_ENCRYPTION_KEYS: a key ring generated once into the data directory (mode
 * 0600, same format as the variable), next to the database it protects. Servers (DATABASE_URL) never do
 * this: several instances must share one ring, so there it has to come from the environment.
 */
export function loadOrCreateKeyRing(dataDir: string): KeyRing {
  mkdirSync(dataDir, { recursive: true });
  const path = keyRingPath(dataDir);
  if (!existsSync(path)) {
    const id = `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`;
    writeFileSync(path, `${generateKeyEntry(id)}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
  }
  return parseKeyRing(readFileSync(path, 'utf8').trim());
}
