// The catalog's search (a substring of the name, in any case) reads the trigram index, not every latest
// version of the catalog (docs/mcp-registry.md "What the list answers", migration 1240): the plan of the
// list's query shape on a catalog of thousands of servers, and the answer through the v0.1 API. A deep page
// (a cursor far into the catalog) starts in the latest versions' index at the cursor's name: it reads its
// page's rows, never the names before them (no OFFSET).
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

/** The nodes of a query's plan as run (EXPLAIN ANALYZE), and the plan in short for failure messages. */
async function planOf(query: ReturnType<typeof sql>) {
  const result = await server.context.database.db.execute(sql`EXPLAIN (ANALYZE, FORMAT JSON) ${query}`);
  const plan = (result as unknown as { rows: Array<{ 'QUERY PLAN': unknown }> }).rows[0]?.['QUERY PLAN'];
  const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as Array<{ Plan: PlanNode }>;
  const nodes = nodesOf(parsed[0]!.Plan);
  return { nodes, shown: JSON.stringify(nodes.map((node) => [node['Node Type'], node['Index Name']])) };
}

describe("the catalog's search", () => {
  it('reads the names that can match from the trigram index, not every latest version', async () => {
    // The shape of the IDE's search (src/modules/mcp-catalog/mcp-catalog.repo.ts listVersions).
    const { nodes, shown } = await planOf(sql`
      SELECT id FROM mcp_server_versions
      WHERE organization_id = ${organization.id} AND is_latest AND status <> 'deleted'
        AND name ILIKE ${'%server-0123%'}
      ORDER BY name LIMIT 31`);
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

describe("the catalog's deep page", () => {
  // The cursor after the 2,900th name: an IDE paging to the end of the catalog.
  const after = 'com.example/Server-02900';

  it("starts at the cursor's name in the latest versions' index and reads only its page", async () => {
    // The shape of a page after a cursor (src/modules/mcp-catalog/mcp-catalog.repo.ts listVersions).
    const { nodes, shown } = await planOf(sql`
      SELECT id FROM mcp_server_versions
      WHERE organization_id = ${organization.id} AND (approval IS NULL OR approval = 'approved')
        AND is_latest AND status <> 'deleted' AND name > ${after}
      ORDER BY name LIMIT 31`);
    expect(
      nodes.map((node) => node['Index Name']),
      shown,
    ).toContain('mcp_server_versions_latest');
    // Neither every row read and sorted, nor the names before the cursor read and dropped.
    expect(
      nodes.map((node) => node['Node Type']),
      shown,
    ).not.toEqual(expect.arrayContaining([expect.stringMatching(/Seq Scan|Sort|Bitmap/)]));
    const read = nodes.reduce(
      (sum, node) => sum + (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0),
      0,
    );
    expect(read, shown).toBeLessThanOrEqual(2 * 31);
  });

  it('answers the names after the cursor through the v0.1 API, in name order', async () => {
    const first = await server.request<{ metadata: { nextCursor?: string } }>(
      'GET',
      `/mcp/${organization.slug}/v0.1/servers?version=latest&limit=100`,
    );
    expect(first.status, first.text).toBe(200);
    let cursor = first.body.metadata.nextCursor;
    // Page on to the 2,900th name, as an IDE does, each page's cursor from the answer before it.
    for (let page = 1; page < 29; page++) {
      const res = await server.request<{ metadata: { nextCursor?: string } }>(
        'GET',
        `/mcp/${organization.slug}/v0.1/servers?version=latest&limit=100&cursor=${cursor}`,
      );
      expect(res.status, res.text).toBe(200);
      cursor = res.body.metadata.nextCursor;
    }
    const deep = await server.request<{
      servers: Array<{ server: { name: string } }>;
      metadata: { count: number; nextCursor?: string };
    }>('GET', `/mcp/${organization.slug}/v0.1/servers?version=latest&limit=100&cursor=${cursor}`);
    expect(deep.status, deep.text).toBe(200);
    expect(deep.body.servers.map((entry) => entry.server.name)).toEqual(
      Array.from({ length: 100 }, (_, i) => `com.example/Server-${String(2901 + i).padStart(5, '0')}`),
    );
    expect(deep.body.metadata.nextCursor).toBeUndefined();
  });
});
