/**
 * The MCP catalog at scale (issue 44): 10,000 servers × 5 versions in one organization's catalog, listed,
 * searched and paged through its v0.1 API, each against the Expert registry's own list (`/registry/experts`)
 * on the same number of rows (10,000 Experts × 5 versions, bench/seed-registry.ts), loaded in alternating
 * rounds in the same run, on the same database and the same Cadre process.
 *
 *   npm run build && npx tsx bench/mcp-catalog.ts                              # embedded PGlite, seeds itself
 *   DATABASE_URL=postgres://… npx tsx bench/seed-registry.ts                   # PostgreSQL: the registry's rows
 *   npm run build && DATABASE_URL=postgres://… npx tsx bench/mcp-catalog.ts
 *
 * It seeds the catalog into the registry's organization (set-based SQL, public access) on its first run.
 * Each pair returns the same number of rows (the searches match 100 names each). Ratio = catalog req/s ÷
 * registry req/s; the issue asks for ≥ 1. A second table gives each side's answer size and the CPU time the
 * Cadre process spent per request: on this shared machine req/s moves with everybody's load, the CPU time a
 * request costs much less, so that table tells a slower run from slower code.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/db/client.js';
import { type LoadResult, loadAlternating, ratio, report, startCadre } from './lib.js';

const SERVERS = 10_000;
const VERSIONS = 5;

const url = process.env.DATABASE_URL;
// PGlite is one process's: Cadre makes the data directory (and its bootstrap.json) once and stops, then the
// registry and the catalog are seeded into it here, and Cadre starts again on it for the load.
const dataDir = url ? undefined : mkdtempSync(join(tmpdir(), 'cadre-bench-mcp-'));
if (dataDir) {
  await (await startCadre({ CADRE_DATA_DIR: dataDir })).stop();
  execFileSync(process.execPath, ['--import', 'tsx', 'bench/seed-registry.ts'], {
    env: { ...process.env, CADRE_DATA_DIR: join(dataDir, 'pgdata') },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const database = await openDatabase(url ? { url } : { dataDir: join(dataDir!, 'pgdata') });
const { db } = database;
const found = (await db.execute(
  sql`SELECT o.id, o.slug FROM organizations o JOIN registry_counts c ON c.organization_id = o.id
    WHERE o.slug LIKE 'bench-%' LIMIT 1`,
)) as unknown as { rows: Array<{ id: string; slug: string }> };
const organization = found.rows[0];
if (!organization) throw new Error('no seeded registry organization: run bench/seed-registry.ts first');
const seeded = (await db.execute(
  sql`SELECT count(*)::int AS n FROM mcp_server_versions WHERE organization_id = ${organization.id}`,
)) as unknown as { rows: Array<{ n: number }> };
if (seeded.rows[0]!.n === 0) {
  await db.transaction(async (tx) => {
    await tx.execute(sql`INSERT INTO mcp_catalogs (organization_id, access, updated_at)
      VALUES (${organization.id}, 'public', now())`);
    for (let v = 1; v <= VERSIONS; v++) {
      const version = `${v}.0.0`;
      // Typed parameters: PostgreSQL cannot infer them inside jsonb_build_object.
      await tx.execute(sql`
        INSERT INTO mcp_server_versions (id, organization_id, name, version, server, status, status_changed_at,
          is_latest, published_at, updated_at, published_by_user_id)
        SELECT 'mcp' || ${String(v)}::text || lpad(i::text, 20, '0'), ${organization.id},
          'io.cadre.bench/server-' || lpad(i::text, 5, '0'), ${version}::text,
          jsonb_build_object('name', 'io.cadre.bench/server-' || lpad(i::text, 5, '0'),
            'description', 'Benchmark MCP server number ' || i, 'version', ${version}::text,
            'packages', jsonb_build_array(jsonb_build_object('registryType', 'npm',
              'identifier', '@bench/server-' || i, 'version', ${version}::text,
              'transport', jsonb_build_object('type', 'stdio')))),
          'active', now(), ${v === VERSIONS}::boolean, now() - make_interval(secs => ${(VERSIONS - v) * 100_000}::int + i),
          now() - make_interval(secs => ${(VERSIONS - v) * 100_000}::int + i), 'bench'
        FROM generate_series(1, ${SERVERS}::int) AS i`);
    }
  });
  await db.execute(sql`VACUUM ANALYZE mcp_server_versions`);
}
await database.close();

const slug = organization.slug;
const catalog = `/mcp/${slug}/v0.1/servers`;
// The page after the 9,000th server: the cursor IDEs would hold there (opaque to them; built here).
const cursorAfter = Buffer.from(JSON.stringify(['io.cadre.bench/server-09000', '5.0.0'])).toString(
  'base64url',
);
/**
 * A new search text on every request, so no read is an answer cache hit and each one runs its query (what
 * the index bounds): 100,000 texts, five digits after the prefix, each matching one name or none.
 */
function everyTextNew(path: (digits: string) => string): Partial<autocannon.Options> {
  let next = 0;
  return {
    requests: [
      {
        setupRequest: (request) => {
          next = (next + 7919) % 100_000;
          return { ...request, path: path(String(next).padStart(5, '0')) };
        },
      },
    ],
  };
}

const comparisons: Array<{
  what: string;
  registry: string;
  catalog: string;
  registryExtra?: Partial<autocannon.Options>;
  catalogExtra?: Partial<autocannon.Options>;
}> = [
  {
    what: 'list, first page of 100',
    registry: '/registry/experts?take=100',
    catalog: `${catalog}?version=latest&limit=100`,
  },
  {
    // Both match 100 names: the registry's filter is a name prefix, the catalog's search a substring.
    what: 'search (name substring), 100',
    registry: '/registry/experts?take=100&filter=bench-expert-042',
    catalog: `${catalog}?version=latest&limit=100&search=server-042`,
  },
  {
    what: 'page 91 (after 9,000 servers)',
    registry: '/registry/experts?take=100&skip=9000',
    catalog: `${catalog}?version=latest&limit=100&cursor=${cursorAfter}`,
  },
  {
    what: 'search, a new text every request (no cache hit)',
    registry: '/registry/experts?take=100&filter=bench-expert-04237',
    catalog: `${catalog}?version=latest&limit=100&search=server-04237`,
    registryExtra: everyTextNew((digits) => `/registry/experts?take=100&filter=bench-expert-${digits}`),
    catalogExtra: everyTextNew((digits) => `${catalog}?version=latest&limit=100&search=server-${digits}`),
  },
];

const cadre = await startCadre(dataDir ? { CADRE_DATA_DIR: dataDir } : {});
const rows: Array<LoadResult & { ratio?: number; target?: string }> = [];
try {
  for (const comparison of comparisons) {
    for (const path of [comparison.registry, comparison.catalog]) {
      const res = await fetch(cadre.url + path);
      if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    }
    const [registry, ours] = await loadAlternating([
      {
        name: `registry ${comparison.what}: ${comparison.registry}`,
        url: cadre.url + comparison.registry,
        cpuOf: cadre.child.pid,
        ...(comparison.registryExtra ? { extra: comparison.registryExtra } : {}),
      },
      {
        name: `MCP catalog ${comparison.what}: ${comparison.catalog}`,
        url: cadre.url + comparison.catalog,
        cpuOf: cadre.child.pid,
        ...(comparison.catalogExtra ? { extra: comparison.catalogExtra } : {}),
      },
    ]);
    rows.push(registry!, {
      ...ours!,
      ratio: ratio(ours!.requestsPerSecond, registry!.requestsPerSecond),
      target: '≥ 1 (vs registry)',
    });
  }
} finally {
  await cadre.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
report('MCP catalog vs the Expert registry, 10,000 × 5 each (issue 44)', rows);

console.log(
  '\n| scenario | registry / catalog bytes per answer | registry / catalog Cadre CPU µs per request |',
);
console.log('|---|---:|---:|');
for (let pair = 0; pair < rows.length; pair += 2) {
  const [registry, ours] = [rows[pair]!, rows[pair + 1]!];
  const what = comparisons[pair / 2]!.what;
  console.log(
    `| ${what} | ${registry.bytesPerRequest} / ${ours.bytesPerRequest} | ` +
      `${registry.cpuMicrosPerRequest ?? '?'} / ${ours.cpuMicrosPerRequest ?? '?'} |`,
  );
}
