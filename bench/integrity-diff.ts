/**
 * Issue 28's two figures, in process (no server: both are CPU work of one request).
 *
 * 1. The integrity digest adds nothing measurable to a read: a read presents the stored digest, so presenting
 *    a record with it is compared, in alternating rounds, with presenting the same record without the field
 *    (the answer before digests existed) — both serialized, as the read cache stores them. For scale, the
 *    same read computing the digest each time (what storing it avoids) is shown too.
 * 2. A diff of two 20 KB instructions (the largest the registry accepts) that differ in every fifth line,
 *    with the structured diff of their skills: target well under 50 ms.
 *
 *   npx tsx bench/integrity-diff.ts        (BENCH_ROUNDS rounds, default 5)
 */
import { performance } from 'node:perf_hooks';
import type { ExpertRecord } from '../src/modules/registry/registry.tables.js';
import { presentExpert } from '../src/modules/registry-faces/registry.presenters.js';
import { integrityOf } from '../src/modules/supply-chain/integrity.js';
import { diffDefinitions } from '../src/modules/supply-chain/version-diff.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const READS = 20_000;

const instruction = (seed: string) => {
  const lines: string[] = [];
  for (let i = 0; Buffer.byteLength(lines.join('\n')) < 20 * 1024 - 100; i++) {
    lines.push(
      i % 5 === 0 ? `Line ${i}: ${seed} rule number ${i}.` : `Line ${i}: keep answers short and exact.`,
    );
  }
  return lines.join('\n');
};

const now = new Date();
const record: ExpertRecord = {
  id: 'x'.repeat(24),
  seq: 1,
  name: '@acme/writer',
  version: '1.0.0',
  versionOrder: '',
  organizationId: 'o'.repeat(24),
  minRuntimeVersion: 'v1.0',
  description: 'Writes',
  instruction: instruction('old'),
  skills: {
    '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' },
    search: { type: 'mcpSseSkill', endpoint: 'https://search.example/sse', pick: ['find'] },
  },
  delegates: ['@acme/editor@1.0.0'],
  tags: [],
  isLatest: true,
  status: 'available',
  integrity: null,
  unavailableDelegates: null,
  runsOnV1_0: true,
  createdAt: now,
  updatedAt: now,
  ownerSlug: 'acme',
  ownerCreatedAt: now,
};
const stored = { ...record, integrity: integrityOf(record) };

const withDigest = () => JSON.stringify({ data: { expert: presentExpert(stored) } });
// The same presenter, the field then blanked (JSON.stringify leaves an undefined value out): the same work
// but the digest's bytes.
const withoutDigest = () => {
  const expert: Partial<ReturnType<typeof presentExpert>> = presentExpert(stored);
  expert.integrity = undefined;
  return JSON.stringify({ data: { expert } });
};
const computedEachRead = () => JSON.stringify({ data: { expert: presentExpert(record) } });

const targets = {
  'stored digest': withDigest,
  'no digest (before)': withoutDigest,
  'digest computed per read': computedEachRead,
};
const spent = new Map<string, number>(Object.keys(targets).map((name) => [name, 0]));
for (const run of Object.values(targets)) for (let i = 0; i < 1000; i++) run(); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(targets)) {
    const start = performance.now();
    for (let i = 0; i < READS; i++) run();
    spent.set(name, (spent.get(name) ?? 0) + performance.now() - start);
  }
}
const perRead = (name: string) => ((spent.get(name) ?? 0) * 1000) / (READS * ROUNDS);
const baseline = perRead('no digest (before)');
console.log('presenting + serializing one full record (20 KB instruction):');
for (const name of Object.keys(targets)) {
  console.log(
    `  ${name.padEnd(26)} ${perRead(name).toFixed(2)} µs   ×${(perRead(name) / baseline).toFixed(3)}`,
  );
}

const next = {
  ...record,
  version: '2.0.0',
  instruction: instruction('new'),
  skills: { ...record.skills, fs: { type: 'mcpStdioSkill' as const, command: 'uvx', packageName: 'fs-mcp' } },
};
diffDefinitions(record, next); // warm-up
const times: number[] = [];
for (let i = 0; i < 21; i++) {
  const start = performance.now();
  const diff = diffDefinitions(record, next);
  times.push(performance.now() - start);
  if (!diff.instruction.changed) throw new Error('the instructions differ');
}
times.sort((a, b) => a - b);
console.log(
  `diff of two 20 KB instructions (${Buffer.byteLength(record.instruction)} and ${Buffer.byteLength(next.instruction)} bytes): ` +
    `median ${times[10]?.toFixed(1)} ms, worst ${times.at(-1)?.toFixed(1)} ms (target < 50 ms)`,
);
