// The system programs the test suite starts (real Redis, PostgreSQL servers of a test's own, a real browser,
// HAProxy in front of several instances, OpenSSL making the certificates Cadre serves TLS with),
// where Debian puts them, and the Debian packages that bring them. Used by `npm test`'s pretest step
// (scripts/test-setup.mjs) and by the test helpers that start them (test/support/).
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The Debian package of each program. */
export const PACKAGES = {
  redis: 'redis-server',
  postgres: 'postgresql',
  chromium: 'chromium',
  haproxy: 'haproxy',
  openssl: 'openssl',
};

const DESCRIPTIONS = {
  redis: 'redis-server',
  postgres: "PostgreSQL's server programs (/usr/lib/postgresql/<version>/bin/postgres, initdb, pg_ctl)",
  chromium: 'Chromium (/usr/bin/chromium)',
  haproxy: 'HAProxy (/usr/sbin/haproxy)',
  openssl: 'OpenSSL (/usr/bin/openssl)',
};

/** The program's path on PATH, or undefined. */
export function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The newest /usr/lib/postgresql/<version>/bin holding postgres, initdb and pg_ctl, or undefined. */
export function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => /^\d+$/.test(version))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (['postgres', 'initdb', 'pg_ctl'].every((program) => existsSync(join(bin, program)))) return bin;
  }
  return undefined;
}

export function findPrograms() {
  return {
    redis: onPath('redis-server'),
    postgres: postgresBin(),
    chromium: existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : onPath('chromium'),
    haproxy: existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : onPath('haproxy'),
    openssl: existsSync('/usr/bin/openssl') ? '/usr/bin/openssl' : onPath('openssl'),
  };
}

/** The Debian packages of the programs not found. */
export function missingPackages(found = findPrograms()) {
  return Object.keys(PACKAGES)
    .filter((program) => !found[program])
    .map((program) => PACKAGES[program]);
}

/** The exact command that installs them (as root). */
export function installCommand(packages) {
  return `apt-get update && apt-get install -y ${packages.join(' ')}`;
}

/** What a test helper says when its program is missing: at once, never after a wait. */
export function missingProgramMessage(program) {
  return (
    `${DESCRIPTIONS[program]} is not installed, and this test starts it. ` +
    `Run \`npm test\` as root (its pretest step installs it), or install it as root: ` +
    installCommand([PACKAGES[program]])
  );
}
