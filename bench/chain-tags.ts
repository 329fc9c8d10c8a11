/**
 * A tag update at the tip of the deepest delegation chain a publish may start (32 levels) against one on an
 * Expert without delegates (issue 30): tag updates never walk the delegation graph, so the two should cost
 * the same. Sequential updates, alternating between the two Experts, each timed from request to answer.
 *
 *   npm run build && npx tsx bench/chain-tags.ts            (embedded PGlite; DATABASE_URL for PostgreSQL)
 *
 * BENCH_UPDATES (200) updates of each.
 */
import { DELEGATION_DEPTH_LIMIT } from '../src/modules/supply-chain/delegation-graph.js';
import { getJson, startCadre } from './lib.js';

const UPDATES = Number(process.env.BENCH_UPDATES ?? 200);
const cadre = await startCadre();
const auth = { authorization: `Bearer ${cadre.bootstrap.apiKey}` };
const tag = Date.now().toString(36);

const publish = (name: string, delegates: string[]) =>
  getJson(`${cadre.url}/registry/experts`, auth, {
    method: 'POST',
    body: JSON.stringify({
      name,
      version: '1.0.0',
      minRuntimeVersion: 'v1.0',
      description: 'chain benchmark',
      instruction: 'You are a link of a chain.',
      skills: { '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' } },
      delegates,
    }),
  });

try {
  // link-0 ← link-1 ← … ← link-32: the chain from the tip is 32 levels deep.
  for (let i = 0; i <= DELEGATION_DEPTH_LIMIT; i++) {
    await publish(`link-${tag}-${i}`, i === 0 ? [] : [`link-${tag}-${i - 1}@1.0.0`]);
  }
  const tip = `link-${tag}-${DELEGATION_DEPTH_LIMIT}`;
  const lone = `lone-${tag}`;
  await publish(lone, []);

  const timings: Record<string, number[]> = { [tip]: [], [lone]: [] };
  const update = async (name: string, i: number) => {
    const started = performance.now();
    await getJson(`${cadre.url}/registry/experts/${name}@1.0.0`, auth, {
      method: 'POST',
      body: JSON.stringify({ tags: [i % 2 ? 'stable' : 'beta'] }),
    });
    timings[name]!.push(performance.now() - started);
  };
  for (let i = 0; i < UPDATES; i++) {
    // Alternate which goes first, so neither always follows the other.
    const order = i % 2 ? [tip, lone] : [lone, tip];
    for (const name of order) await update(name, i);
  }
  const q = (values: number[], p: number) =>
    [...values].sort((x, y) => x - y)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
  const row = (label: string, values: number[]) =>
    `| ${label} | ${q(values, 50).toFixed(1)} ms | ${q(values, 99).toFixed(1)} ms |`;
  console.log(
    `\nTag updates, ${UPDATES} each, alternating (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})\n`,
  );
  console.log('| Expert updated | p50 | p99 |\n|---|---:|---:|');
  console.log(row(`tip of a ${DELEGATION_DEPTH_LIMIT}-level chain`, timings[tip]!));
  console.log(row('no delegates', timings[lone]!));
} finally {
  await cadre.stop();
}
