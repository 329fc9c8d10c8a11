import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { ROOT } from './support/process.js';

const build = async (...args: string[]) =>
  (await promisify(execFile)(process.execPath, ['scripts/build.mjs', ...args], { cwd: ROOT })).stdout.trim();

it('scripts/build.mjs compiles only when a source changed (npm start stays fast)', async () => {
  // The run's global set-up has just built: nothing to do.
  const upToDate = 'build: server is up to date\nbuild: console is up to date';
  expect(await build('--dry-run')).toBe(upToDate);
  // A file of its own under src/ (no real source is touched while other tests run): any input counts.
  const probe = join(ROOT, 'src', `.build-probe-${process.pid}`);
  try {
    writeFileSync(probe, 'changed');
    // src/ feeds the server; the console's inputs (console/, the validator and registry rules) are untouched.
    expect(await build('--dry-run')).toBe(
      'build: server would build (sources changed)\nbuild: console is up to date',
    );
  } finally {
    rmSync(probe, { force: true });
  }
  expect(await build('--dry-run')).toBe(upToDate);
  // Not a dry run: still nothing to do, and it says nothing.
  expect(await build()).toBe('');
});
