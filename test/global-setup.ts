import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { endRun, startRun } from './support/leftovers.js';

/**
 * Process-level tests run the built service and CLI exactly as users do: `dist/` is brought up to date once
 * per run. Every program a test starts is recorded, and every temporary file lands in the run's own
 * temporary directory (support/leftovers.ts). When the run ends, whatever is still there is stopped and
 * removed, and the run fails naming it: a test that passes must still clean up after itself. Then the
 * summary says which database each file ran on (the projects of vitest.config.ts).
 */
export function setup(project: TestProject): () => void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  // Workers are forked after this and inherit the run's directories.
  const run = startRun();
  return () => {
    const left = endRun(run);
    const byDatabase = new Map<string, string[]>();
    for (const file of project.vitest.state.getFiles()) {
      const files = byDatabase.get(file.projectName ?? '') ?? [];
      byDatabase.set(file.projectName ?? '', [...files, file.name]);
    }
    const lines = [...byDatabase].map(([database, files]) =>
      files.length <= 5
        ? `  ${database}: ${files.sort().join(', ')}`
        : `  ${database}: ${files.length} files`,
    );
    if (lines.length > 0) console.log(`\nDatabases:\n${lines.join('\n')}`);
    if (left.length > 0) {
      console.error(
        `\nThe tests left ${left.length} thing(s) behind (removed now; the run fails):\n${left.map((item) => `  ${item}`).join('\n')}`,
      );
      process.exitCode = 1;
    }
  };
}
