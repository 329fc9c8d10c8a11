/**
 * Fairness between tenants (docs/operations.md, "Fairness between tenants"): organization B's latency on
 * `GET /api/v1/api-keys` and on a registry read, alone and while organization A floods the same instance
 * with heavy publishes (large skill maps) and database-bound reads from 100 connections. The bar: B's p99
 * during the flood stays within 3× its p99 alone, and B gets no 503.
 *
 *   npm run build && npx tsx bench/fairness.ts          (BENCH_DURATION seconds per phase, default 10)
 */

import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createBenchOrganization, DURATION_S, getJson, startCadre } from './lib.js';

// The in-flight limits under test may be set from the environment (CADRE_CONCURRENCY_*).
const cadre = await startCadre(
  Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name.startsWith('CADRE_CONCURRENCY_')),
  ) as Record<string, string>,
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

// A heavy publish: 60 skills with long argument lists (a large record, well within the limits).
const skills = Object.fromEntries(
  Array.from({ length: 60 }, (_, i) => [
    `skill-${i}`,
    {
      type: 'mcpStdioSkill',
      command: 'npx',
      args: Array.from({ length: 40 }, (_, j) => `--flag-${j}=${'x'.repeat(60)}`),
    },
  ]),
);
let version = 0;
function flood() {
  const publish = autocannon({
    url: cadre.url,
    connections: 50,
    duration: DURATION_S + 2,
    requests: [
      {
        method: 'POST',
        path: '/registry/experts',
        headers: { ...a, 'content-type': 'application/json' },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            name: `flood-${tag}`,
            version: `1.0.${version++}`,
            minRuntimeVersion: '1.0.0',
            description: 'A',
            instruction: 'A',
            skills: { '@service/base': base, ...skills },
          }),
        }),
      },
    ],
  });
  const reads = autocannon({
    url: `${cadre.url}/api/v1/organizations/flood-${tag}/billing/usage`,
    headers: a,
    connections: 50,
    duration: DURATION_S + 2,
  });
  return Promise.all([publish, reads]);
}

const alone = await measureB();
const flooding = flood();
await new Promise((resolve) => setTimeout(resolve, 1_000));
const during = await measureB();
const [publishes, reads] = await flooding;
await cadre.stop();

const statusesOf = (result: autocannon.Result) =>
  Object.entries(result.statusCodeStats ?? {})
    .map(([code, stat]) => `${code}×${(stat as { count: number }).count}`)
    .join(' ');
console.log(`\nFairness — ${new Date().toISOString().slice(0, 10)}, ${DURATION_S} s per phase\n`);
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
