// Builds the console into dist/console (vite), then writes a .br and .gz beside each asset so the server
// sends compressed bytes without compressing on every request.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
execFileSync(
  process.execPath,
  [vite, 'build', '--config', join(root, 'console/vite.config.ts'), '--logLevel', 'warn'],
  {
    cwd: root,
    stdio: 'inherit',
    // Libraries pick their production builds (React Router ships a development one) by this condition.
    env: { ...process.env, NODE_ENV: 'production' },
  },
);

const assets = join(root, 'dist/console/assets');
for (const name of readdirSync(assets)) {
  if (!/\.(js|css|svg|json)$/.test(name)) continue;
  const bytes = readFileSync(join(assets, name));
  writeFileSync(join(assets, `${name}.gz`), gzipSync(bytes, { level: 9 }));
  writeFileSync(
    join(assets, `${name}.br`),
    brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
}
