// Records in package-lock.json the platform-specific optional packages (other platforms' builds of Biome and
// Rollup) that `npm install` leaves out when the registry it reaches does not serve them; without them
// `npm ci` refuses the lock file. Such an entry carries its platform (from the registry, or else from the
// package's name), so npm skips it on every other platform. Run after `npm install`.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const OSES = ['android', 'darwin', 'freebsd', 'linux', 'win32', 'openbsd', 'netbsd', 'openharmony', 'sunos', 'aix'];
const CPUS = ['arm64', 'arm', 'x64', 'ia32', 'ppc64', 'riscv64', 's390x', 'loong64', 'mips64el'];
const LOCK = 'package-lock.json';
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;
let added = 0;

for (const [path, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[base] || packages[`node_modules/${name}`]) continue;
    const info = registryInfo(name, range) ?? platformFromName(name, range);
    packages[`node_modules/${name}`] = {
      version: info.version,
      ...(info['dist.integrity'] ? { integrity: info['dist.integrity'] } : {}),
      ...(info.cpu ? { cpu: info.cpu } : {}),
      ...(entry.dev ? { dev: true } : {}),
      ...(info.engines ? { engines: info.engines } : {}),
      ...(info.libc ? { libc: info.libc } : {}),
      ...(info.license ? { license: info.license } : {}),
      optional: true,
      ...(info.os ? { os: info.os } : {}),
    };
    added++;
  }
}

const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
lock.packages = sorted;
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform package(s)`);

function registryInfo(name, range) {
  try {
    const meta = JSON.parse(
      execFileSync('npm', ['view', `${name}@${range}`, 'version', 'dist.integrity', 'os', 'cpu', 'libc', 'engines', 'license', '--json'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
    return Array.isArray(meta) ? meta.at(-1) : meta;
  } catch {
    return undefined;
  }
}


function platformFromName(name, range) {
  const parts = name.split('/').at(-1).split('-');
  const os = OSES.find((candidate) => parts.includes(candidate));
  const cpu = CPUS.find((candidate) => parts.includes(candidate));
  if (!os || !cpu) throw new Error(`cannot tell the platform of ${name}; add it to the lock by hand`);
  const libc = os === 'linux' ? (parts.includes('musl') ? ['musl'] : ['glibc']) : undefined;
  return { version: range, os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}
