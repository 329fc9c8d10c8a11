/**
 * Prints the PostgreSQL plans of List Experts (each sort, the filter, organizationId) on a seeded database:
 *
 *   DATABASE_URL=postgres://…/cadre_bench npx tsx bench/explain-registry.ts
 */
import { fillPlaceholders } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../src/db/client.js';
import {
  listCountQuery,
  listPageQuery,
  listQueryShape,
  listQueryValues,
} from '../src/modules/registry/registry-list.repo.js';
import type { ListExpertsQuery } from '../src/modules/registry-faces/registry.schemas.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL must name a seeded PostgreSQL database');
const database = await openDatabase({ url });
const client = new pg.Client({ connectionString: url });
await client.connect();
const sample = await client.query<{ organization_id: string }>(
  'SELECT organization_id FROM registry_experts LIMIT 1',
);
const organizationId = sample.rows[0]?.organization_id ?? '';

const base: ListExpertsQuery = { order: 'desc', take: 100, skip: 0 };
const cases: Array<[string, ListExpertsQuery]> = [
  ['default (createdAt desc)', base],
  ['sort=name&order=asc', { ...base, sort: 'name', order: 'asc' }],
  ['sort=version', { ...base, sort: 'version' }],
  ['sort=createdAt&order=asc', { ...base, sort: 'createdAt', order: 'asc' }],
  ['sort=updatedAt', { ...base, sort: 'updatedAt' }],
  ['filter=bench-expert-012', { ...base, filter: 'bench-expert-012' }],
  ['filter=bench-expert-012&sort=name', { ...base, filter: 'bench-expert-012', sort: 'name' }],
  [`organizationId=…`, { ...base, organizationId }],
  ['skip=5000&sort=updatedAt', { ...base, skip: 5000, sort: 'updatedAt' }],
];
const explain = async (label: string, query: { sql: string; params: unknown[] }) => {
  const result = await client.query(
    `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${query.sql}`,
    query.params,
  );
  console.log(`### ${label}\n\n\`\`\`\n${result.rows.map((row) => row['QUERY PLAN']).join('\n')}\n\`\`\`\n`);
};
const withTotal = new Set(['default (createdAt desc)', 'filter=bench-expert-012', 'organizationId=…']);
/** The statement as the service prepares it, its placeholders filled with this query's values. */
const filled = (query: ListExpertsQuery, statement: { sql: string; params: unknown[] }) => ({
  sql: statement.sql,
  params: fillPlaceholders(statement.params, listQueryValues(query)),
});
const digests = { records: false, runtimeV1_0Only: false };
for (const [label, query] of cases) {
  const shape = listQueryShape(query, digests);
  await explain(`${label}: page`, filled(query, listPageQuery(database.db, shape).toSQL()));
  if (withTotal.has(label))
    await explain(`${label}: total`, filled(query, listCountQuery(database.db, shape).toSQL()));
}
await client.end();
await database.close();
