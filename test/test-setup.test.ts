import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { ROOT } from './support/process.js';

it("npm test's pretest step stops at once with the exact install command when a program is missing", async () => {
  const empty = mkdtempSync(join(tmpdir(), 'cadre-no-programs-'));
  try {
    // No redis-server on this PATH; --check reports instead of installing.
    const run = await promisify(execFile)(process.execPath, ['scripts/test-setup.mjs', '--check'], {
      cwd: ROOT,
      env: { PATH: empty },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The tests start real programs that are not installed: redis-server');
    const command =
      process.getuid?.() === 0
        ? 'apt-get update && apt-get install -y redis-server'
        : "sudo sh -c 'apt-get update && apt-get install -y redis-server'";
    expect(run.stderr).toContain(`\n  ${command}\n`);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

it('passes silently when every program is there', async () => {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ['scripts/test-setup.mjs', '--check'],
    {
      cwd: ROOT,
    },
  );
  expect(stdout + stderr).toBe('');
});
