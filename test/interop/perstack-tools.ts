import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from '../support/process.js';

/**
 * Perstack's own tools for `npm run test:interop` (docs/perstack.md "Tested against Perstack's tools"): the
 * packs beside the clone (`../shared/perstack/packs`, or CADRE_PERSTACK_PACKS), installed together into a cache
 * outside the repository, one folder per set of packs (named by their digest), reused while they do not change.
 * Their own dependencies come from the npm registry. Sets CADRE_PERSTACK_BIN (the CLI) for the test workers.
 */
export function setup(): void {
  const packs = resolve(process.env.CADRE_PERSTACK_PACKS ?? join(ROOT, '..', 'shared', 'perstack', 'packs'));
  if (!existsSync(packs)) {
    throw new Error(
      `Perstack's packs are not at ${packs}: put shared/perstack beside the clone, or set CADRE_PERSTACK_PACKS`,
    );
  }
  const files = readdirSync(packs)
    .filter((name) => name.endsWith('.tgz'))
    .sort();
  if (files.length === 0) throw new Error(`no .tgz packs in ${packs}`);
  const digest = createHash('sha256');
  for (const file of files) digest.update(file).update(readFileSync(join(packs, file)));
  const cacheRoot = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const folder = join(cacheRoot, 'cadre-interop', digest.digest('hex').slice(0, 16));
  const bin = join(folder, 'node_modules', '.bin', 'perstack');
  if (!existsSync(join(folder, 'installed'))) {
    // Installed into a fresh folder, then moved into place: a run stopped halfway leaves no half-installed cache.
    const staging = `${folder}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    writeFileSync(join(staging, 'package.json'), '{"private":true}\n');
    const started = Date.now();
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files.map((file) => join(packs, file))],
      { cwd: staging, stdio: 'inherit' },
    );
    writeFileSync(join(staging, 'installed'), `${files.join('\n')}\n`);
    rmSync(folder, { recursive: true, force: true });
    renameSync(staging, folder);
    console.log(`Perstack's tools installed in ${folder} (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  process.env.CADRE_PERSTACK_BIN = bin;
}
