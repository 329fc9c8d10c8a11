/**
 * The web console's figures (docs/console.md#performance), each beside a baseline measured in the same run:
 *
 * 1. JavaScript the first page needs, gzipped: the entry script and what it preloads (not the playground).
 * 2. Time to the registry list being visible, on loopback, in a fresh browser profile (cold cache), against
 *    a bare node:http server sending the same 20 items as plain HTML (no script at all).
 * 3. With 10,000 Experts: from the last keystroke in the search box to the list showing its result, and
 *    the longest input event while typing (how responsive the box stays), against the API's own latency
 *    for the same query asked from Node.
 *
 *   npm run build && npx tsx bench/console.ts        (BENCH_ROUNDS, default 5; alternates console/baseline)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROUNDS, startProcess } from './lib.js';

const ROOT = join(import.meta.dirname, '..');
const EXPERTS = Number(process.env.BENCH_EXPERTS ?? 10_000);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]!;
const ms = (value: number) => `${value.toFixed(0)} ms`;

// 1. The first page's JavaScript.
const shell = readFileSync(join(ROOT, 'dist/console/index.html'), 'utf8');
const scripts = [...shell.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
const gzipped = scripts.reduce(
  (sum, path) => sum + statSync(join(ROOT, 'dist/console', `${path}.gz`)).size,
  0,
);
const raw = scripts.reduce((sum, path) => sum + statSync(join(ROOT, 'dist/console', path)).size, 0);

// A registry of 10,000 Experts (one version each), seeded with set-based SQL into a new data directory.
const dataDir = mkdtempSync(join(tmpdir(), 'cadre-bench-console-'));
execFileSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'bench/seed-registry.ts'], {
  cwd: ROOT,
  env: { ...process.env, CADRE_DATA_DIR: join(dataDir, 'pgdata'), EXPERTS: String(EXPERTS), VERSIONS: '1' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const cadre = await startProcess(['dist/main.js'], {
  HOST: '127.0.0.1',
  PORT: '0',
  CADRE_LOG_LEVEL: 'info',
  CADRE_DATA_DIR: dataDir,
  CADRE_RATE_LIMIT_ANONYMOUS_READ: '1000000000',
});

// The baseline page: the same first 20 items, rendered on the server, no script.
const firstPage = (await (await fetch(`${cadre.url}/registry/experts?take=20&sort=updatedAt`)).json()) as {
  data: { experts: Array<{ name: string; version: string; description: string }> };
};
const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
const baselineHtml = `<!doctype html><title>Experts</title><h1>Experts</h1><ul>${firstPage.data.experts
  .map(
    (e) =>
      `<li class="expert-item"><a>${escapeHtml(e.name)}</a> v${e.version}<p>${escapeHtml(e.description)}</p></li>`,
  )
  .join('')}</ul>`;
const bare = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(baselineHtml);
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});

/** Navigation start to the first list item visible, in a new profile (nothing cached). */
async function timeToList(url: string): Promise<number> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'commit' });
  await page.locator('.expert-item').first().waitFor({ state: 'visible' });
  const elapsed = await page.evaluate(() => performance.now());
  await context.close();
  return elapsed;
}

// 2. Alternating rounds, so a drift in the machine's speed hits both alike.
const consoleTimes: number[] = [];
const baselineTimes: number[] = [];
await timeToList(`${cadre.url}/`); // warm the server's caches and Chromium's code
for (let round = 0; round < ROUNDS * 2; round++) {
  if (round % 2 === 0) consoleTimes.push(await timeToList(`${cadre.url}/`));
  else baselineTimes.push(await timeToList(bareUrl));
}

// 3. Typing into the search box with 10,000 Experts.
const queries = [
  'bench-expert-001',
  'bench-expert-0002',
  'bench-expert-0012',
  'bench-expert-00',
  'bench-expert-0029',
];
const context = await browser.newContext();
const page = await context.newPage();
await page.goto(`${cadre.url}/`);
await page.locator('.expert-item').first().waitFor();
await page.evaluate(() => {
  const holder = globalThis as unknown as { __longestEvent: number };
  holder.__longestEvent = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      holder.__longestEvent = Math.max(holder.__longestEvent, entry.duration);
  }).observe({ type: 'event', durationThreshold: 16 } as never);
});
const search = page.getByLabel('Search', { exact: true });
const toResult: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const query of queries) {
    await search.fill('');
    await page.waitForTimeout(300);
    // A fast typist: 40 ms between keys.
    await search.pressSequentially(query, { delay: 40 });
    const typed = await page.evaluate(() => performance.now());
    await page
      .waitForFunction(
        (q) => {
          const doc = (
            globalThis as unknown as {
              document: { querySelector(s: string): { textContent: string } | null };
            }
          ).document;
          const first = doc.querySelector('.expert-name');
          const status = doc.querySelector('[aria-live="polite"]');
          return first?.textContent.startsWith(q) && !status?.textContent.includes('updating');
        },
        query,
        { polling: 5, timeout: 10_000 },
      )
      .catch(async (error: Error) => {
        const shown = await page.locator('.expert-name').allTextContents();
        const status = await page.locator('main').textContent();
        throw new Error(
          `${query} at ${page.url()}: the list shows ${shown.join(', ')} (${status}); ${error.message}`,
        );
      });
    toResult.push((await page.evaluate(() => performance.now())) - typed);
  }
}
const longestEvent = await page.evaluate(
  () => (globalThis as unknown as { __longestEvent: number }).__longestEvent,
);
await context.close();

const apiTimes: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const query of queries) {
    const started = performance.now();
    await (
      await fetch(`${cadre.url}/registry/experts?take=20&sort=updatedAt&order=desc&skip=0&filter=${query}`)
    ).json();
    apiTimes.push(performance.now() - started);
  }
}

await browser.close();
bare.close();
await cadre.stop();
rmSync(dataDir, { recursive: true, force: true });

console.log(`\nConsole — ${new Date().toISOString().slice(0, 10)}, ${ROUNDS} rounds\n`);
console.log('| measure | console | baseline | ratio |');
console.log('|---|---:|---:|---:|');
console.log(
  `| JavaScript for the first page (gzipped; raw ${(raw / 1024).toFixed(0)} KB) | ${(gzipped / 1024).toFixed(1)} KB | 0 KB (plain HTML) | |`,
);
console.log(
  `| registry list visible, cold profile (median) | ${ms(median(consoleTimes))} | ${ms(median(baselineTimes))} | ${(median(consoleTimes) / median(baselineTimes)).toFixed(2)} |`,
);
console.log(
  `| ${EXPERTS.toLocaleString('en')} Experts: last keystroke → result shown (median / p95; includes the 200 ms typing pause) | ${ms(median(toResult))} / ${ms(p95(toResult))} | API alone ${ms(median(apiTimes))} / ${ms(p95(apiTimes))} | |`,
);
console.log(
  `| ${EXPERTS.toLocaleString('en')} Experts: longest input event while typing | ${ms(longestEvent)} | (under 200 ms counts as good) | |`,
);
