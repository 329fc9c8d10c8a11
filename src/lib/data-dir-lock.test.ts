import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cadre-lock-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe.each([
  { mode: 'abstract socket (Linux)', abstract: true },
  { mode: 'socket file (other platforms)', abstract: false },
])('lockDataDir: $mode', ({ abstract }) => {
  it('one holder at a time, also through another path to the same directory; free again once released', async () => {
    const dir = join(root, 'data');
    const lock = await lockDataDir(dir, { abstract });
    await expect(lockDataDir(dir, { abstract })).rejects.toBeInstanceOf(DataDirLockedError);
    symlinkSync(dir, join(root, 'alias'));
    await expect(lockDataDir(join(root, 'alias'), { abstract })).rejects.toThrow(
      /another Cadre server is already running on the data directory .*data: stop it first/,
    );
    const other = await lockDataDir(join(root, 'other'), { abstract });
    await lock.release();
    await (await lockDataDir(dir, { abstract })).release();
    await other.release();
  });

  it('a holder killed with SIGKILL leaves nothing that blocks the next start', async () => {
    const dir = join(root, 'data');
    // A real process takes the lock and dies without any chance to clean up.
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('${join(import.meta.dirname, 'data-dir-lock.ts')}').then(async (m) => { await m.lockDataDir(${JSON.stringify(dir)}, { abstract: ${abstract} }); console.log('locked'); setInterval(() => {}, 1000); })`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await once(holder.stdout!, 'data');
    await expect(lockDataDir(dir, { abstract })).rejects.toBeInstanceOf(DataDirLockedError);
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    if (!abstract) expect(existsSync(join(dir, 'cadre.lock.sock'))).toBe(true);
    await (await lockDataDir(dir, { abstract })).release();
  });
});
