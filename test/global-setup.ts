import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REGISTRY_ENV, releaseAll } from './support/leftovers.js';

/**
 * Process-level tests run the built service and CLI exactly as users do: `dist/` is brought up to date once
 * per run. Every program and directory a test starts is recorded (support/leftovers.ts); the teardown stops
 * and removes whatever a failed test left, so no process of the suite outlives the run.
 */
export function setup(): () => void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const registry = mkdtempSync(join(tmpdir(), 'cadre-test-leftovers-'));
  // Workers are forked after this and inherit it.
  process.env[REGISTRY_ENV] = registry;
  return () => {
    const left = releaseAll(registry);
    if (left.length > 0)
      console.warn(`test teardown: stopped or removed ${left.length} leftover(s) of failed tests`);
  };
}
