// `npm test`'s pretest step: the suite starts real redis-server, PostgreSQL and Chromium processes. Finds
// each; when one is missing and this runs as root on a machine with apt-get, installs its Debian package;
// otherwise stops at once with the exact command to run. `--check` only reports (never installs).
import { execFileSync } from 'node:child_process';
import { installCommand, missingPackages, onPath } from './test-programs.mjs';

const missing = missingPackages();
if (missing.length === 0) process.exit(0);

const canInstall = !process.argv.includes('--check') && process.getuid?.() === 0 && onPath('apt-get');
if (!canInstall) {
  const root = process.getuid?.() === 0 ? '' : 'sudo sh -c ';
  const command = root ? `${root}'${installCommand(missing)}'` : installCommand(missing);
  console.error(
    `The tests start real programs that are not installed: ${missing.join(', ')} (Debian packages).\n` +
      `Install them, then run npm test again:\n  ${command}\n` +
      '(Run as root with apt-get, `npm test` installs them itself.)',
  );
  process.exit(1);
}

console.error(`Installing what the tests start: ${missing.join(' ')} (apt-get, as root) …`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const quiet = { stdio: ['ignore', 'ignore', 'inherit'], env };
execFileSync('apt-get', ['update', '-qq'], quiet);
execFileSync('apt-get', ['install', '-y', '-qq', ...missing], quiet);
const still = missingPackages();
if (still.length > 0) {
  console.error(`apt-get finished but these are still missing: ${still.join(', ')}`);
  process.exit(1);
}
