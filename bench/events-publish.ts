/**
 * Issue 29's figure: recording events adds under 5 % to a publish.
 *
 * One Cadre in process (embedded PGlite; DATABASE_URL for PostgreSQL), its organization with one webhook
 * endpoint subscribed to `expert.published`, so recording a publish's event also queues a delivery. A change's
 * events and deliveries are written by its audit insert, as common table expressions of that one statement
 * (auditWrites). In alternating rounds:
 *   - publishes over HTTP on loopback, one at a time (each records its event);
 *   - a publish's audit insert with its events, in a transaction of its own (as a publish runs it);
 *   - the same audit insert without events.
 * What recording adds to a publish = (audit with events − audit alone) ÷ (publish − that), all of the same
 * run. The delivery worker is paused (a 1-hour poll) so sending does not compete.
 *
 *   npx tsx bench/events-publish.ts        (BENCH_ROUNDS rounds, default 5; BENCH_PUBLISHES per round, 200)
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { generateKeyEntry, parseKeyRing } from '../src/lib/key-ring.js';
import { auditWrites } from '../src/modules/audit/audit.repo.js';
import { eventWritesOfAuditChange } from '../src/modules/events/from-audit.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 200);
const ADMIN = 'bench-admin-token-0123456789abcdefghijklmnopqrstuvwxyz';

const database = await openDatabase(
  process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { dataDir: 'memory://' },
);
await migrate(database);
const { app } = await buildApp({
  database,
  adminToken: ADMIN,
  logger: false,
  keyRing: parseKeyRing(generateKeyEntry('k1')),
  rateLimits: { enabled: false },
  concurrency: { enabled: false },
  webhooks: { worker: { pollIntervalMs: 3_600_000 } },
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });

async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

const slug = `bench-${Date.now().toString(36)}`;
const created = await call('POST', '/admin/v1/organizations', ADMIN, {
  slug,
  name: slug,
  accountType: 'team',
  owner: { email: `o@${slug}.test` },
});
const key: string = created.data.apiKey.key;
await call('PUT', `/admin/v1/organizations/${slug}/limits`, ADMIN, {
  apiRequests: 1e9,
  expertVersions: 1e6,
  apiKeys: 1e6,
  connections: 1e6,
});
// BENCH_ENDPOINTS=0: no endpoint subscribed, so the event alone (no delivery to queue).
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 1);
for (let i = 0; i < ENDPOINTS; i++) {
  await call('POST', '/api/v1/webhook-endpoints', key, {
    url: `https://hooks.example.com/bench-${i}`,
    eventTypes: ['expert.published'],
  });
}

let serial = 0;
const publish = () =>
  call('POST', '/registry/experts', key, {
    name: `@${slug}/writer-${serial % 20}`,
    version: `1.0.${serial++}`,
    minRuntimeVersion: '0.1.0',
    description: 'A benchmark Expert',
    instruction: 'Write short, exact answers.',
    skills: { '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' } },
  });

const organizationId: string = created.data.organization.id;
// The audit entry a publish writes, with and without the events it derives (one statement either way).
const auditOfPublish = () => {
  const version = `9.0.${serial++}`;
  return {
    organizationId,
    action: 'expert.published',
    actor: { kind: 'admin' } as const,
    target: { type: 'expert', id: `@${slug}/writer@${version}` },
    metadata: { expertId: 'e'.repeat(24), tags: ['latest'] },
    at: new Date(),
  };
};
const auditWithEvents = () =>
  database.db.transaction(async (tx) => {
    const change = auditOfPublish();
    await tx.execute(auditWrites(change, [eventWritesOfAuditChange(change)!]));
  });
const auditAlone = () =>
  database.db.transaction(async (tx) => {
    await tx.execute(auditWrites(auditOfPublish(), []));
  });

const targets: Record<string, () => Promise<unknown>> = {
  publish,
  'audit with events': auditWithEvents,
  'audit alone': auditAlone,
};
const spent = new Map<string, number>(Object.keys(targets).map((name) => [name, 0]));
for (const run of Object.values(targets)) for (let i = 0; i < 50; i++) await run(); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  // Each round starts with the next target, so a drift of the machine's speed falls on all of them.
  const entries = Object.entries(targets);
  const order = [...entries.slice(round % entries.length), ...entries.slice(0, round % entries.length)];
  for (const [name, run] of order) {
    const start = performance.now();
    for (let i = 0; i < PUBLISHES; i++) await run();
    spent.set(name, spent.get(name)! + performance.now() - start);
  }
}
const [{ events, deliveries }] = (
  (await database.db.execute(sql`SELECT (SELECT count(*)::int FROM events WHERE type = 'expert.published') AS events,
    (SELECT count(*)::int FROM webhook_deliveries) AS deliveries`)) as unknown as {
    rows: Array<{ events: number; deliveries: number }>;
  }
).rows as [{ events: number; deliveries: number }];
await app.close();
await database.close();

const ms = (name: string) => spent.get(name)! / (ROUNDS * PUBLISHES);
const added = ms('audit with events') - ms('audit alone');
const withoutEvents = ms('publish') - added;
console.log(
  JSON.stringify({
    database: database.kind,
    endpoints: ENDPOINTS,
    rounds: ROUNDS,
    perRound: PUBLISHES,
    msPerPublish: Number(ms('publish').toFixed(3)),
    msAuditWithEvents: Number(ms('audit with events').toFixed(3)),
    msAuditAlone: Number(ms('audit alone').toFixed(3)),
    added: `${((added / withoutEvents) * 100).toFixed(1)} %`,
    eventsWritten: events,
    deliveriesQueued: deliveries,
  }),
);
