/**
 * Fairness between tenants (docs/operations.md, "Fairness between tenants"): organization B's latency on
 * `GET /api/v1/api-keys` and on a registry read, alone and while organization A floods the same instance
 * with heavy publishes (large skill maps) and database-bound reads from 100 connections. The bar: B's p99
 * during the flood stays within 3× its p99 alone, and B gets no 503.
 *
 *   npm run build && npx tsx bench/fairness.ts          (BENCH_DURATION seconds per phase, default 10)
 *
 * BENCH_MAIN names another build's entry point (default dist/main.js): on a VM whose speed drifts, two
 * builds are compared by alternating runs of each.
 *
 * BENCH_FLOOD_KIND=chain: A's writes are tag updates at the tip of a 32-level delegation chain instead of
 * publishes (issue 30); BENCH_FLOOD_KIND=tags: tag updates on an Expert without delegates, the same flood's
 * plain counterpart.
 */

import { fork } from 'node:child_process';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DELEGATION_DEPTH_LIMIT } from '../src/modules/supply-chain/delegation-graph.js';
import { createBenchOrganization, DURATION_S, getJson, startCadre } from './lib.js';

// The bar's flood is A "at its full rate limit": by default the service runs with its default rate limits
// (A hammers anyway and is refused past them). BENCH_FLOOD=unlimited lifts the limits, so A's accepted load
// is whatever the instance can take: harsher than the bar, for seeing where the instance gives.
const UNLIMITED = process.env.BENCH_FLOOD === 'unlimited';
const DEFAULT_RATE_LIMITS = {
  CADRE_RATE_LIMIT_READ: '6000',
  CADRE_RATE_LIMIT_WRITE: '1200',
};
// The in-flight limits are what this bench tests: the service's defaults (startCadre raises them for every
// other bench), or what the environment sets (CADRE_CONCURRENCY_*).
const DEFAULT_IN_FLIGHT_LIMITS = {
  CADRE_CONCURRENCY_PER_CREDENTIAL: '32',
  CADRE_CONCURRENCY_PER_ORGANIZATION: '64',
};
const cadre = await startCadre(
  {
    ...(UNLIMITED ? {} : DEFAULT_RATE_LIMITS),
    ...DEFAULT_IN_FLIGHT_LIMITS,
    ...(Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name.startsWith('CADRE_CONCURRENCY_')),
    ) as Record<string, string>),
  },
  process.env.BENCH_MAIN,
);

const organization = async (slug: string) => ({
  authorization: `Bearer ${await createBenchOrganization(cadre.url, cadre.bootstrap.adminToken, slug)}`,
});

const tag = Date.now().toString(36);
const a = await organization(`flood-${tag}`);
const b = await organization(`quiet-${tag}`);
const base = { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' };
await getJson(`${cadre.url}/registry/experts`, b, {
  method: 'POST',
  body: JSON.stringify({
    name: `quiet-${tag}`,
    version: '1.0.0',
    minRuntimeVersion: '1.0.0',
    description: 'B',
    instruction: 'B',
    skills: { '@service/base': base },
  }),
});

// The chain scenarios: A's flood updates the tags of one version, the tip of a chain or an Expert alone.
const FLOOD_KIND = process.env.BENCH_FLOOD_KIND ?? 'publishes';
if (!['publishes', 'chain', 'tags'].includes(FLOOD_KIND)) throw new Error(`BENCH_FLOOD_KIND=${FLOOD_KIND}?`);
async function publishAs(headers: Record<string, string>, name: string, delegates: string[] = []) {
  await getJson(`${cadre.url}/registry/experts`, headers, {
    method: 'POST',
    body: JSON.stringify({
      name,
      version: '1.0.0',
      minRuntimeVersion: '1.0.0',
      description: 'A',
      instruction: 'A',
      skills: { '@service/base': base },
      delegates,
    }),
  });
}
let updatePath: string | undefined;
if (FLOOD_KIND === 'chain') {
  for (let i = 0; i <= DELEGATION_DEPTH_LIMIT; i++) {
    await publishAs(a, `chain-${tag}-${i}`, i === 0 ? [] : [`chain-${tag}-${i - 1}@1.0.0`]);
  }
  updatePath = `/registry/experts/chain-${tag}-${DELEGATION_DEPTH_LIMIT}@1.0.0`;
} else if (FLOOD_KIND === 'tags') {
  await publishAs(a, `lone-${tag}`);
  updatePath = `/registry/experts/lone-${tag}@1.0.0`;
}

// A steady tenant well inside its rate limit: each of its two reads at B_RATE requests per second, evenly
// spaced, from a process of its own (open loop: B's latency is what it waits, not how fast it could go).
const B_RATE = Number(process.env.BENCH_B_RATE ?? 40);

/** B's two reads for DURATION_S: their p99s (ms) and any non-2xx. */
async function measureB() {
  const keysPath = '/api/v1/api-keys';
  const registryPath = `/registry/experts/quiet-${tag}@1.0.0`;
  const settings = {
    url: cadre.url,
    headers: b,
    paths: [keysPath, registryPath],
    rate: B_RATE,
    durationMs: DURATION_S * 1000,
  };
  const probe = fork(fileURLToPath(new URL('./fairness-probe.mjs', import.meta.url)), [
    JSON.stringify(settings),
  ]);
  const { results } = (await once(probe, 'message'))[0] as {
    results: Record<string, { latencies: number[]; non2xx: number; errors: number }>;
  };
  const keys = results[keysPath]!;
  const registry = results[registryPath]!;
  if (process.env.BENCH_VERBOSE) {
    for (const [path, result] of Object.entries(results)) {
      const q = (p: number) => percentile(result.latencies, p).toFixed(1);
      console.log(
        `${path}: n ${result.latencies.length} p50 ${q(50)} p90 ${q(90)} p99 ${q(99)} max ${q(100)}`,
      );
    }
  }
  return {
    keysP99: percentile(keys.latencies, 99),
    registryP99: percentile(registry.latencies, 99),
    non2xx: keys.non2xx + registry.non2xx,
    errors: keys.errors + registry.errors,
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

// A's flood runs in a process of its own at a lower priority (nice 10; BENCH_FLOOD_NICE=0 to keep it level):
// on this small machine the load generator shares the server's cores, and A's clients taking the CPU from
// the server is not a tenant taking the instance from another. B's probe keeps the normal priority.
const FLOOD_NICE = Number(process.env.BENCH_FLOOD_NICE ?? 10);
// BENCH_FLOOD_PUBLISHES=0 floods with reads only: what B pays for the shared CPU and statements alone, with
// none of A's transactions holding the database (a diagnostic, not the bar's flood).
const PUBLISH_CONNECTIONS = Number(process.env.BENCH_FLOOD_PUBLISHES ?? 50);
async function flood() {
  const child = fork(fileURLToPath(new URL('./fairness-flood.mjs', import.meta.url)), [
    JSON.stringify({
      url: cadre.url,
      headers: a,
      tag,
      durationS: DURATION_S + 2,
      publishConnections: PUBLISH_CONNECTIONS,
      updatePath,
    }),
  ]);
  if (FLOOD_NICE !== 0 && child.pid !== undefined) setPriority(child.pid, FLOOD_NICE);
  return (await once(child, 'message'))[0] as Record<'publishes' | 'reads', FloodResult>;
}
interface FloodResult {
  statusCodeStats?: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}

const alone = await measureB();
const flooding = flood();
await new Promise((resolve) => setTimeout(resolve, 1_000));
const during = await measureB();
const { publishes, reads } = await flooding;
await cadre.stop();

const statusesOf = (result: FloodResult) =>
  Object.entries(result.statusCodeStats ?? {})
    .map(([code, stat]) => `${code}×${stat.count}`)
    .join(' ');
console.log(
  `\nFairness — ${new Date().toISOString().slice(0, 10)}, ${DURATION_S} s per phase, ${UNLIMITED ? 'no rate limits' : 'default rate limits'}, flood at nice ${FLOOD_NICE}, A's writes: ${FLOOD_KIND}\n`,
);
console.log('| B measures | alone p99 | while A floods p99 | ratio | bar |');
console.log('|---|---:|---:|---:|---|');
console.log(
  `| GET /api/v1/api-keys | ${alone.keysP99.toFixed(1)} ms | ${during.keysP99.toFixed(1)} ms | ${(during.keysP99 / Math.max(1, alone.keysP99)).toFixed(2)} | ≤ 3 |`,
);
console.log(
  `| GET /registry/experts/{key} | ${alone.registryP99.toFixed(1)} ms | ${during.registryP99.toFixed(1)} ms | ${(during.registryP99 / Math.max(1, alone.registryP99)).toFixed(2)} | ≤ 3 |`,
);
console.log(
  `\nB's non-2xx answers during the flood: ${during.non2xx} (bar: no 503); errors ${during.errors}`,
);
console.log(
  `A's publishes: ${statusesOf(publishes)} (errors ${publishes.errors}, timeouts ${publishes.timeouts}); A's reads: ${statusesOf(reads)} (errors ${reads.errors}, timeouts ${reads.timeouts})`,
);
