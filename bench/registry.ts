/**
 * Registry load figures (issue 3), each against a bare node:http server answering the same bytes in the same
 * run, on PostgreSQL seeded with 10,000 Experts × 5 versions:
 *
 *   createdb -h 127.0.0.1 -U postgres cadre_bench
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/cadre_bench npx tsx bench/seed-registry.ts
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/cadre_bench npx tsx bench/registry.ts
 *
 * Scenarios: GET name@version with a warm read cache and with the cache disabled (two Cadre processes on the
 * seeded database), GET /registry/experts?take=100, and publishes/s with 10 concurrent clients.
 */
import { type LoadResult, load, loadAlternating, ratio, report, startBare, startCadre } from './lib.js';

if (!process.env.DATABASE_URL)
  throw new Error('DATABASE_URL must name a database seeded by bench/seed-registry.ts');

const rows: Array<LoadResult & { ratio?: number; target?: string }> = [];
const cached = await startCadre();
const uncached = await startCadre({ CADRE_REGISTRY_CACHE_ENTRIES: '0' });

interface Scenario {
  name: string;
  base: string;
  target?: string;
  /** Each request asks for another path (the bare server still answers the one body). */
  paths?: () => string;
}

// Any of the 50,000 seeded versions: every request reads another row, as a cache-less server serving
// many clients would.
const anyVersion = () =>
  `/registry/experts/bench-expert-${String(1 + Math.floor(Math.random() * 10_000)).padStart(5, '0')}@${1 + Math.floor(Math.random() * 5)}.0.0`;

/** The scenarios and a bare server answering the path's exact body, loaded in alternating rounds. */
async function versusBare(path: string, scenarios: Scenario[]) {
  const bare = await startBare(await (await fetch(cached.url + path)).text());
  try {
    const [baseline, ...measured] = await loadAlternating([
      { name: `bare node:http, same body as ${path}`, url: bare.url },
      ...scenarios.map(({ name, base, paths }) => ({
        name,
        url: base + path,
        extra: paths
          ? {
              requests: [
                {
                  method: 'GET' as const,
                  setupRequest: (request: object) => ({ ...request, path: paths() }),
                },
              ],
            }
          : {},
      })),
    ]);
    rows.push(baseline!);
    measured.forEach((result, index) => {
      rows.push({
        ...result,
        ratio: ratio(result.requestsPerSecond, baseline!.requestsPerSecond),
        target: scenarios[index]!.target,
      });
    });
  } finally {
    await bare.stop();
  }
}

try {
  await versusBare('/registry/experts/bench-expert-04242@3.0.0', [
    { name: 'GET name@version, warm read cache', base: cached.url, target: '≥ 0.6' },
    { name: 'GET name@version, cache disabled', base: uncached.url, target: '≥ 0.15' },
    {
      name: 'GET name@version, cache disabled, a random one of the 50,000 per request',
      base: uncached.url,
      target: '≥ 0.15',
      paths: anyVersion,
    },
  ]);
  await versusBare('/registry/experts?take=100', [
    { name: 'GET ?take=100, warm cache', base: cached.url, target: 'report' },
    { name: 'GET ?take=100, cache disabled', base: uncached.url, target: 'report' },
  ]);
  await versusBare('/registry/experts?take=100&sort=version', [
    { name: 'GET ?take=100&sort=version, cache disabled', base: uncached.url, target: 'report' },
  ]);

  const prefix = `pub-${Date.now().toString(36)}`;
  let n = 0;
  // Ten names, new versions of each: publishes to one name serialize on its row lock, as in real use.
  const body = (i: number) =>
    JSON.stringify({
      name: `${prefix}-${i % 10}`,
      version: `1.0.${i}`,
      minRuntimeVersion: '0.1.0',
      description: 'publish benchmark',
      instruction: 'You are a benchmark Expert.',
      skills: { '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' } },
    });
  rows.push({
    ...(await load(
      'POST /registry/experts (10 clients)',
      cached.url,
      {},
      {
        connections: 10,
        warmUp: false,
        requests: [
          {
            method: 'POST',
            path: '/registry/experts',
            headers: {
              authorization: `Bearer ${cached.bootstrap.apiKey}`,
              'content-type': 'application/json',
            },
            setupRequest: (request) => ({ ...request, body: body(n++) }),
          },
        ],
      },
    )),
    target: 'report',
  });
  report('Registry (PostgreSQL, 10,000 Experts × 5 versions)', rows);
} finally {
  await Promise.all([cached.stop(), uncached.stop()]);
}
