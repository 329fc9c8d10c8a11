import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CadreProcess, startCadre } from './support/process.js';

/** Every path under `dir` whose mode lets group or others in, with its mode. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) found.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return found;
}

/** SIGTERM, then exit 0; otherwise the failure shows how it ended (a signal is a crash) and what it printed. */
async function expectCleanStop(cadre: CadreProcess) {
  const code = await cadre.stop();
  expect({ code, signal: cadre.child.signalCode }, cadre.output().slice(-4000)).toEqual({
    code: 0,
    signal: null,
  });
}

describe('the embedded data directory is private', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'cadre-private-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('a new data directory and everything the server writes in it: no access for group or others', async () => {
    const dataDir = join(root, 'new');
    const previous = process.umask(0o022); // a common umask: files would be world-readable by default
    try {
      const cadre = await startCadre({ CADRE_DATA_DIR: dataDir });
      await expectCleanStop(cadre);
    } finally {
      process.umask(previous);
    }
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['pgdata', 'bootstrap.json']));
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it('a directory an older version left open is tightened at start', async () => {
    const dataDir = join(root, 'old');
    mkdirSync(join(dataDir, 'pgdata'), { recursive: true });
    writeFileSync(join(dataDir, 'notes.txt'), 'left by hand');
    chmodSync(join(dataDir, 'notes.txt'), 0o666);
    chmodSync(join(dataDir, 'pgdata'), 0o777);
    chmodSync(dataDir, 0o755);
    const cadre = await startCadre({ CADRE_DATA_DIR: dataDir });
    await expectCleanStop(cadre);
    expect(openToOthers(dataDir)).toEqual([]);
    expect(lstatSync(join(dataDir, 'notes.txt')).mode & 0o777).toBe(0o600);
  });
});
