// The one build step of `npm run build`, `prepare` (npm ci), `prestart` (npm start) and the test run.
// Each step runs only when its inputs changed since it last succeeded, so a restart does not recompile
// (a full `tsc` takes about 20 s on a small machine). A step's fingerprint (every input file's path and
// content: a checkout that only touches mtimes does not rebuild, and restoring a file restores its
// fingerprint exactly) is stored in dist/.build/<step>.json after it succeeds. `--force` rebuilds everything;
// `--dry-run` prints what would be built and builds nothing.
// To add a step (another bundle, a web console), append to STEPS: its inputs, the outputs that must
// exist, and the command.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMPS = join(ROOT, 'dist', '.build');
const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const STEPS = [
  {
    name: 'server',
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    outputs: ['dist/main.js', 'dist/cli/main.js'],
    command: [process.execPath, tsc, '-p', 'tsconfig.build.json'],
  },
  {
    // The web console (console/README.md); it runs the cadre.toml validator and registry rules from src/;
    // the server's lists it needs are copies in console/src/generated/ (`npm run console:api-types`).
    name: 'console',
    inputs: ['console', 'src/shared', 'src/api-schema.d.ts', 'package-lock.json'],
    outputs: ['dist/console/index.html'],
    command: [process.execPath, join(ROOT, 'console', 'scripts', 'build.mjs')],
  },
];

function files(path) {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full).flatMap((name) => files(join(path, name)));
}

function fingerprint(step) {
  const hash = createHash('sha256');
  for (const file of step.inputs.flatMap(files).sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(ROOT, file)));
    hash.update('\n');
  }
  return hash.digest('hex');
}

const force = process.argv.includes('--force');
const dryRun = process.argv.includes('--dry-run');
for (const step of STEPS) {
  const stamp = join(STAMPS, `${step.name}.json`);
  const current = fingerprint(step);
  const previous = existsSync(stamp) ? JSON.parse(readFileSync(stamp, 'utf8')).fingerprint : undefined;
  const outputsThere = step.outputs.every((output) => existsSync(join(ROOT, output)));
  if (!force && previous === current && outputsThere) {
    if (dryRun) console.log(`build: ${step.name} is up to date`);
    continue;
  }
  const started = Date.now();
  const reason = force
    ? 'forced'
    : !previous
      ? 'first build'
      : previous !== current
        ? 'sources changed'
        : 'outputs missing';
  if (dryRun) {
    console.log(`build: ${step.name} would build (${reason})`);
    continue;
  }
  console.error(`build: ${step.name} (${reason}) …`);
  execFileSync(step.command[0], step.command.slice(1), { cwd: ROOT, stdio: 'inherit' });
  mkdirSync(STAMPS, { recursive: true });
  writeFileSync(stamp, JSON.stringify({ fingerprint: current }));
  console.error(`build: ${step.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
