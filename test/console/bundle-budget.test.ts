import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../support/process.js';

// The first page's script budget (docs/console.md, bench/README.md): what index.html loads before anything
// is clicked — its module entry and every chunk it preloads — gzipped at level 9, as the server sends it.
const BUDGET_BYTES = 120 * 1024;

const out = mkdtempSync(join(tmpdir(), 'cadre-console-budget-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('keeps the first page script under 120 KB gzipped, with zod left to the pages that need it', () => {
  // A build of its own (not dist/console, which other tests serve while this runs).
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      join(ROOT, 'console/vite.config.ts'),
      '--outDir',
      out,
      '--emptyOutDir',
      '--logLevel',
      'error',
    ],
    { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production' }, stdio: 'pipe' },
  );
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  const scripts = [
    ...html.matchAll(/<script type="module"[^>]*src="([^"]+)"/g),
    ...html.matchAll(/<link rel="modulepreload"[^>]*href="([^"]+)"/g),
  ].map((match) => match[1] as string);
  expect(scripts.length).toBeGreaterThan(0);
  const files = scripts.map((src) => readFileSync(join(out, src)));
  const gzipped = files.reduce((sum, bytes) => sum + gzipSync(bytes, { level: 9 }).length, 0);
  console.info(`first page script: ${scripts.length} file(s), ${(gzipped / 1024).toFixed(1)} KB gzipped`);
  expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
  // zod's error class name survives minification: its absence says zod is not on the first page.
  for (const bytes of files) expect(bytes.toString('utf8')).not.toContain('ZodError');
}, 180_000);
