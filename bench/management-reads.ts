// Issue 32. The management API's database-bound GETs against a hand-written Fastify server doing the same
// reads on the same database (bench/anchor-server.mjs: Fastify + pg, or Fastify + PGlite on a copy of the
// embedded database), each also against a bare node:http server sending Cadre's answer. Requests are spread
// over many ids and organizations (never one id repeated, which batching flatters): 25 organizations with
// 3 keys, a project and 6 Experts each. Request logging and rate limits stay on, as deployed.
//
//   npm run build && npx tsx bench/management-reads.ts                  # embedded PGlite
//   DATABASE_URL=postgres://… npx tsx bench/management-reads.ts        # PostgreSQL (an empty database)
//   BENCH_HISTORY=8000 DATABASE_URL=… npx tsx bench/management-reads.ts # each organization with a long trail
//
// BENCH_HISTORY (PostgreSQL only) gives each organization that many more audit events and events, copies of
// its own, before the load: the pages then read from tables the size of a service in use, whose plans (and
// PostgreSQL's JIT, docs/performance.md) differ from a fresh database's.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  type LoadResult,
  loadAlternating,
  type ReadTenant,
  ratio,
  type Server,
  seedReadTenants,
  startBare,
  startCadre,
  startProcess,
} from './lib.js';

const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 25);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const onPostgres = Boolean(process.env.DATABASE_URL);
const HISTORY = Number(process.env.BENCH_HISTORY ?? 0);
if (HISTORY > 0 && !onPostgres) throw new Error('BENCH_HISTORY needs DATABASE_URL (PostgreSQL)');

type Tenant = ReadTenant;
type Cadre = Awaited<ReturnType<typeof startCadre>>;

/** A route as Cadre and the anchor serve it, one request per id or organization. */
interface Scenario {
  name: string;
  cadre: (tenant: Tenant) => string[];
  anchor: (tenant: Tenant) => string[];
}

const ALL_SCENARIOS: Scenario[] = [
  {
    name: 'GET /api/v1/api-keys/{id}',
    cadre: (t) => t.keyIds.map((id) => `/api/v1/api-keys/${id}`),
    anchor: (t) => t.keyIds.map((id) => `/keys/${id}?org=${t.id}`),
  },
  { name: 'GET /api/v1/api-keys', cadre: () => ['/api/v1/api-keys'], anchor: (t) => [`/keys?org=${t.id}`] },
  {
    name: 'GET /api/v1/organizations/{org}/members',
    cadre: (t) => [`/api/v1/organizations/${t.slug}/members`],
    anchor: (t) => [`/members?org=${t.id}`],
  },
  {
    name: 'GET /api/v1/projects',
    cadre: () => ['/api/v1/projects'],
    anchor: (t) => [`/projects?org=${t.id}`],
  },
  {
    name: 'GET /api/v1/organizations/{org}/audit-events',
    cadre: (t) => [`/api/v1/organizations/${t.slug}/audit-events`],
    anchor: (t) => [`/audit?org=${t.id}`],
  },
  { name: 'GET /api/v1/events', cadre: () => ['/api/v1/events'], anchor: (t) => [`/events?org=${t.id}`] },
  {
    // Cadre runs with its registry cache off: every list is read. Spread over 25 pages (skip 0 to 24).
    name: 'GET /registry/experts?take=100 (cache off)',
    cadre: (t) => [`/registry/experts?take=100&skip=${t.index}`],
    anchor: (t) => [`/registry?take=100&skip=${t.index}`],
  },
];

// BENCH_ONLY=audit runs the scenarios whose route contains that text (profiling one route).
const SCENARIOS = ALL_SCENARIOS.filter((scenario) => scenario.name.includes(process.env.BENCH_ONLY ?? ''));

// The registry's read cache off, so its list scenario reads the database; the management routes have none.
const CADRE_ENV = { CADRE_REGISTRY_CACHE_ENTRIES: '0' };

/**
 * Copies of each organization's audit events and events until it has about `perOrganization` more of each
 * (newer by `seq`, so the pages show copies; each copy keeps its original's shape, names and targets).
 */
async function addHistory(url: string, perOrganization: number) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO audit_events (id, organization_id, action, actor_kind, actor_user_id, actor_api_key_id,
         actor_session_id, target_type, target_id, metadata, created_at)
       SELECT a.id || '_' || g, a.organization_id, a.action, a.actor_kind, a.actor_user_id, a.actor_api_key_id,
         a.actor_session_id, a.target_type, a.target_id, a.metadata, a.created_at
       FROM audit_events a
       CROSS JOIN generate_series(1, ceil($1::numeric /
         (SELECT count(*) FROM audit_events b WHERE b.organization_id = a.organization_id))::int) g`,
      [perOrganization],
    );
    await client.query(
      `INSERT INTO events (id, organization_id, type, actor_kind, actor_user_id, actor_api_key_id,
         resource_type, resource_id, payload, created_at)
       SELECT e.id || '_' || g, e.organization_id, e.type, e.actor_kind, e.actor_user_id, e.actor_api_key_id,
         e.resource_type, e.resource_id, e.payload, e.created_at
       FROM events e
       CROSS JOIN generate_series(1, ceil($1::numeric /
         (SELECT count(*) FROM events f WHERE f.organization_id = e.organization_id))::int) g`,
      [perOrganization],
    );
    await client.query('ANALYZE audit_events, events');
    const { rows } = await client.query<{ audit: string; events: string }>(
      'SELECT (SELECT count(*) FROM audit_events) AS audit, (SELECT count(*) FROM events) AS events',
    );
    console.error(`history: ${rows[0]!.audit} audit events, ${rows[0]!.events} events`);
  } finally {
    await client.end();
  }
}

/** Cadre with its data, and the anchor on the same data (a copy of it, for the embedded database). */
async function startServers(): Promise<{
  cadre: Cadre;
  anchor: Server;
  tenants: Tenant[];
  done: () => void;
}> {
  if (onPostgres) {
    const cadre = await startCadre(CADRE_ENV);
    const tenants = await seedReadTenants(cadre, ORGANIZATIONS);
    if (HISTORY > 0) await addHistory(process.env.DATABASE_URL!, HISTORY);
    const anchor = await startProcess(['bench/anchor-server.mjs'], {
      DATABASE_URL: process.env.DATABASE_URL!,
    });
    return { cadre, anchor, tenants, done: () => undefined };
  }
  // PGlite is one process's: seed, stop, copy the directory for the anchor, and start Cadre on it again.
  const dataDir = mkdtempSync(join(tmpdir(), 'cadre-bench-reads-'));
  const copy = `${dataDir}-anchor`;
  const seeding = await startCadre({ CADRE_DATA_DIR: dataDir, ...CADRE_ENV });
  const tenants = await seedReadTenants(seeding, ORGANIZATIONS);
  await seeding.stop();
  cpSync(join(dataDir, 'pgdata'), copy, { recursive: true });
  const cadre = await startCadre({ CADRE_DATA_DIR: dataDir, ...CADRE_ENV });
  const anchor = await startProcess(['bench/anchor-server.mjs'], { ANCHOR_PGLITE_DIR: copy });
  const done = () => {
    for (const dir of [dataDir, copy]) rmSync(dir, { recursive: true, force: true });
  };
  return { cadre, anchor, tenants, done };
}

const { cadre, anchor, tenants, done } = await startServers();
const bares: Server[] = [];
const results: Array<{
  scenario: string;
  runs: Array<{ cadre: number; anchor: number; cadreVsAnchor: number; p99: number }>;
}> = [];
try {
  const targets = [];
  for (const scenario of SCENARIOS) {
    const cadreRequests = tenants.flatMap((tenant) =>
      scenario
        .cadre(tenant)
        .map((path) => ({ method: 'GET' as const, path, headers: { authorization: tenant.authorization } })),
    );
    const anchorRequests = tenants.flatMap((tenant) =>
      scenario.anchor(tenant).map((path) => ({ method: 'GET' as const, path })),
    );
    const sample = cadreRequests[0]!;
    const body = await (await fetch(cadre.url + sample.path, { headers: sample.headers })).text();
    const bare = await startBare(body);
    bares.push(bare);
    targets.push({
      scenario,
      list: [
        { name: 'bare', url: bare.url },
        { name: 'anchor', url: anchor.url, extra: { requests: anchorRequests } },
        { name: 'cadre', url: cadre.url, extra: { requests: cadreRequests } },
      ],
    });
  }
  for (const { scenario } of targets) results.push({ scenario: scenario.name, runs: [] });
  for (let run = 0; run < RUNS; run++) {
    for (const [index, { list }] of targets.entries()) {
      const [bare, anchored, measured] = (await loadAlternating(list)) as [
        LoadResult,
        LoadResult,
        LoadResult,
      ];
      results[index]!.runs.push({
        cadre: ratio(measured.requestsPerSecond, bare.requestsPerSecond),
        anchor: ratio(anchored.requestsPerSecond, bare.requestsPerSecond),
        cadreVsAnchor: ratio(measured.requestsPerSecond, anchored.requestsPerSecond),
        p99: measured.p99Ms,
      });
      console.error(
        `run ${run + 1}: ${list[2]!.name} ${results[index]!.scenario}: ${JSON.stringify(results[index]!.runs.at(-1))}`,
      );
    }
  }
  const anchorName = onPostgres ? 'Fastify + pg' : 'Fastify + PGlite';
  console.log(
    `\n### Management reads on ${onPostgres ? 'PostgreSQL' : 'PGlite'}: ${RUNS} runs, ${tenants.length} organizations\n`,
  );
  console.log(`| route | Cadre ÷ bare, per run | ${anchorName} ÷ bare | Cadre ÷ anchor | Cadre p99 ms |`);
  console.log('|---|---|---|---|---|');
  for (const { scenario, runs } of results) {
    const list = (pick: (run: (typeof runs)[number]) => number) => runs.map(pick).join(', ');
    console.log(
      `| ${scenario} | ${list((r) => r.cadre)} | ${list((r) => r.anchor)} | ${list((r) => r.cadreVsAnchor)} | ${list((r) => r.p99)} |`,
    );
  }
} finally {
  await Promise.all([cadre.stop(), anchor.stop(), ...bares.map((bare) => bare.stop())]);
  done();
}
