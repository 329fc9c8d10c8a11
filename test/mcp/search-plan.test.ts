// The catalog's search (a substring of the name, in any case) reads the trigram index, not every latest
// version of the catalog (docs/mcp-registry.md "What the list answers", migration 1240): the plan of the
// list's query shape on a catalog of thousands of servers, and the answer through the v0.1 API.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { nodesOf, type PlanNode } from '../support/query-plan.js';
import { startServer, type TestServer } from '../support/server.js';
import { setAccess } from './helpers.js';

let server: TestServer;
let organization: TestOrganization;
const SERVERS = 3000;

beforeAll(async () => {
  server = await startServer();
  organization = await createOrganization(server);
  await setAccess(server, organization, 'public');
  const { db } = server.context.database;
  for (const version of ['1.0.0', '2.0.0']) {
    await db.execute(sql`
      INSERT INTO mcp_server_versions (id, organization_id, name, version, server, status, status_changed_at,
        is_latest, published_at, updated_at, published_by_user_id)
      SELECT ${`s${version[0]}_`} || i, ${organization.id}, 'com.example/Server-' || lpad(i::text, 5, '0'),
        ${version}::text, jsonb_build_object('name', 'com.example/Server-' || lpad(i::text, 5, '0'),
          'description', 'A server', 'version', ${version}::text),
        'active', now(), ${version === '2.0.0'}::boolean, now(), now(), 'seed'
      FROM generate_series(1, ${SERVERS}::int) AS i`);
  }
  await db.execute(sql`ANALYZE mcp_server_versions`);
}, 120_000);
afterAll(() => server.close());

describe("the catalog's search", () => {
  it('reads the names that can match from the trigram index, not every latest version', async () => {
    // The shape of the IDE's search (src/modules/mcp-catalog/mcp-catalog.repo.ts listVersions).
    const result = await server.context.database.db.execute(sql`
      EXPLAIN (ANALYZE, FORMAT JSON)
      SELECT id FROM mcp_server_versions
      WHERE organization_id = ${organization.id} AND is_latest AND status <> 'deleted'
        AND name ILIKE ${'%server-0123%'}
      ORDER BY name LIMIT 31`);
    const plan = (result as unknown as { rows: Array<{ 'QUERY PLAN': unknown }> }).rows[0]?.['QUERY PLAN'];
    const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as Array<{ Plan: PlanNode }>;
    const nodes = nodesOf(parsed[0]!.Plan);
    const shown = JSON.stringify(nodes.map((node) => [node['Node Type'], node['Index Name']]));
    expect(
      nodes.map((node) => node['Index Name']),
      shown,
    ).toContain('mcp_server_versions_name_trgm');
    const skipped = nodes.reduce((sum, node) => sum + (node['Rows Removed by Filter'] ?? 0), 0);
    // The matching names' other versions at most, never the catalog's thousands.
    expect(skipped, shown).toBeLessThan(100);
  });

  it('still matches a substring of the name in any case, in name order', async () => {
    const res = await server.request<{ servers: Array<{ server: { name: string } }> }>(
      'GET',
      `/mcp/${organization.slug}/v0.1/servers?version=latest&search=SERVER-0123`,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.servers.map((entry) => entry.server.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `com.example/Server-0123${i}`),
    );
  });
});
