/**
 * Seeds the registry for benchmarks: one personal organization owning `EXPERTS` names (default 10,000)
 * with `VERSIONS` versions each (default 5), written with set-based SQL in a few seconds.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/cadre_bench npx tsx bench/seed-registry.ts
 *
 * Prints JSON: the organization id and slug, and a sample key (`bench-expert-00042@3.0.0`) to GET.
 * Run it on an empty database (it migrates first); it ends with VACUUM ANALYZE so plans are realistic.
 */
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { newId } from '../src/lib/ids.js';
import { versionOrder } from '../src/modules/registry-faces/expert-key.js';

const experts = Number(process.env.EXPERTS ?? 10_000);
const versions = Number(process.env.VERSIONS ?? 5);
const url = process.env.DATABASE_URL;

const database = await openDatabase(
  url ? { url } : { dataDir: process.env.CADRE_DATA_DIR ?? './.cadre-data' },
);
await migrate(database);
const { db } = database;

const organizationId = newId();
const slug = `bench-${organizationId.slice(0, 6)}`;
const skills = JSON.stringify({
  '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' },
});
const instruction = 'You are a benchmark Expert. '.repeat(40);

await db.transaction(async (tx) => {
  await tx.execute(
    sql`INSERT INTO organizations (id, slug, name, account_type) VALUES (${organizationId}, ${slug}, ${slug}, 'personal')`,
  );
  await tx.execute(sql`
    INSERT INTO registry_names (name, organization_id)
    SELECT 'bench-expert-' || lpad(i::text, 5, '0'), ${organizationId} FROM generate_series(1, ${experts}::int) AS i`);
  for (let v = 1; v <= versions; v++) {
    const version = `${v}.0.0`;
    const latest = v === versions;
    // Ids: 24 lowercase alphanumerics like cuid2, unique per (name, version).
    await tx.execute(sql`
      INSERT INTO registry_versions (name, version, expert_id)
      SELECT 'bench-expert-' || lpad(i::text, 5, '0'), ${version}, 'bench' || ${String(v)} || lpad(i::text, 18, '0')
      FROM generate_series(1, ${experts}::int) AS i`);
    await tx.execute(sql`
      INSERT INTO registry_experts (id, name, version, version_order, organization_id, min_runtime_version,
        description, instruction, skills, is_latest, created_at, updated_at)
      SELECT 'bench' || ${String(v)} || lpad(i::text, 18, '0'), 'bench-expert-' || lpad(i::text, 5, '0'), ${version},
        ${versionOrder(version)}, ${organizationId}, '0.1.0', 'Benchmark Expert number ' || i, ${instruction},
        ${skills}::json, ${latest}, now() - make_interval(secs => ${(versions - v) * 100_000}::int + i),
        now() - make_interval(secs => ${(versions - v) * 100_000}::int + (i * 7919) % ${experts}::int)
      FROM generate_series(1, ${experts}::int) AS i`);
  }
  await tx.execute(
    sql`INSERT INTO registry_counts (organization_id, latest) VALUES (${organizationId}, ${experts}::int)`,
  );
});
// VACUUM sets the visibility map (index-only scans for the list's count), as autovacuum would in time.
await db.execute(sql`VACUUM ANALYZE registry_names`);
await db.execute(sql`VACUUM ANALYZE registry_versions`);
await db.execute(sql`VACUUM ANALYZE registry_experts`);
console.log(
  JSON.stringify({ organizationId, slug, experts, versions, sampleKey: `bench-expert-00042@3.0.0` }, null, 2),
);
await database.close();
