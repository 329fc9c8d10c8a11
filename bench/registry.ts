/**
 * Registry load figures, each against a bare node:http server answering the same bytes in the same run:
 *
 *   createdb cadre_bench && DATABASE_URL=postgres://postgres@127.0.0.1:5432/cadre_bench npx tsx bench/seed-registry.ts
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/cadre_bench npx tsx bench/registry.ts
 *
 * Scenarios: GET name@version with a warm read cache and with the cache disabled (two Cadre processes on
 * the seeded database), GET /registry/experts?take=100, and publishes/s with 10 concurrent clients.
 * Servers run as child processes so autocannon (in this process) does not share their event loop.
 * DURATION (seconds, default 10) and CONNECTIONS (default 50) tune the GET runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// The few parts of autocannon's API used here, typed locally so this file needs no type package.
interface LoadRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: LoadRequest) => LoadRequest;
}
interface LoadOptions {
  url: string;
  connections?: number;
  duration?: number;
  requests?: LoadRequest[];
}
interface LoadResult {
  requests: { average: number };
  latency: { p99: number };
  errors: number;
  non2xx: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: LoadOptions,
) => Promise<LoadResult>;

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL must name a database seeded by bench/seed-registry.ts');
const duration = Number(process.env.DURATION ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 50);
const root = fileURLToPath(new URL('..', import.meta.url));
const ADMIN = 'bench-admin-token-0123456789abcdefghijklmnop';
const children: ChildProcess[] = [];

async function startCadre(port: number, env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), CADRE_LOG_LEVEL: 'warn', CADRE_ADMIN_TOKEN: ADMIN, ...env },
    stdio: 'inherit',
  });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return base;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Cadre on ${port} did not start`);
}

/** A bare node:http server that answers `body` (with the same content type) to every request. */
async function startBare(port: number, body: Buffer): Promise<string> {
  const source = `
    const body = Buffer.from(${JSON.stringify(body.toString('base64'))}, 'base64');
    require('node:http').createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
      res.end(body);
    }).listen(${port}, '127.0.0.1', () => process.send && process.send('up'));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  await once(child, 'message');
  return `http://127.0.0.1:${port}`;
}

interface Figure {
  label: string;
  rps: number;
  p99: number;
  errors: number;
}

async function load(label: string, options: LoadOptions): Promise<Figure> {
  const result = await autocannon({ duration, connections, ...options });
  const errors = result.errors + result.non2xx + result.timeouts;
  return { label, rps: result.requests.average, p99: result.latency.p99, errors };
}

const print = (figure: Figure, bare?: Figure) =>
  console.log(
    `${figure.label.padEnd(48)} ${figure.rps.toFixed(0).padStart(8)} req/s  p99 ${String(figure.p99).padStart(4)} ms` +
      `${bare ? `  ${(figure.rps / bare.rps).toFixed(2)}x bare` : ''}${figure.errors ? `  ${figure.errors} errors` : ''}`,
  );

try {
  const cached = await startCadre(3911);
  const uncached = await startCadre(3912, { CADRE_REGISTRY_CACHE_ENTRIES: '0' });
  const keyPath = '/registry/experts/bench-expert-04242@3.0.0';
  const expert = Buffer.from(await (await fetch(cached + keyPath)).arrayBuffer());
  const listPath = '/registry/experts?take=100';
  const list = Buffer.from(await (await fetch(cached + listPath)).arrayBuffer());
  const bareExpert = await startBare(3913, expert);
  const bareList = await startBare(3914, list);

  const bare1 = await load('bare node:http, same Expert JSON', { url: bareExpert });
  print(bare1);
  print(await load('GET name@version, warm read cache', { url: cached + keyPath }), bare1);
  print(await load('GET name@version, cache disabled', { url: uncached + keyPath }), bare1);
  const bare2 = await load('bare node:http, same list JSON', { url: bareList });
  print(bare2);
  print(await load('GET /registry/experts?take=100, warm cache', { url: cached + listPath }), bare2);
  print(await load('GET /registry/experts?take=100, cache disabled', { url: uncached + listPath }), bare2);
  print(
    await load('GET …?take=100&sort=version, cache disabled', { url: `${uncached}${listPath}&sort=version` }),
    bare2,
  );

  const created = await fetch(`${cached}/admin/v1/organizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      slug: `pub-${Date.now().toString(36)}`,
      name: 'publish bench',
      accountType: 'personal',
      owner: { email: `pub-${Date.now()}@bench.test` },
    }),
  });
  const apiKey = ((await created.json()) as { data: { apiKey: { key: string } } }).data.apiKey.key;
  let n = 0;
  const run = Date.now().toString(36);
  const publishBody = (i: number) =>
    JSON.stringify({
      // Ten names, new versions of each: publishes to one name serialize on its row lock, as in real use.
      name: `bench-pub-${run}-${i % 10}`,
      version: `1.0.${i}`,
      minRuntimeVersion: '0.1.0',
      description: 'publish benchmark',
      instruction: 'You are a benchmark Expert.',
      skills: { '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' } },
    });
  print(
    await load('POST /registry/experts (10 clients)', {
      url: cached,
      connections: 10,
      requests: [
        {
          method: 'POST',
          path: '/registry/experts',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: publishBody(n++) }),
        },
      ],
    }),
  );
} finally {
  // Let requests still in flight when autocannon stopped finish before the servers shut down.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  for (const child of children) child.kill('SIGTERM');
}
