// An organization's audit page reads its own events only, however many newer events other organizations
// have (docs/performance.md, "Plans that hold on a large trail"): on both databases, with the statistics of
// a trail where organizations' events come in runs.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, type TestOrganization } from './support/fixtures.js';
import { nodesOf, type PlanNode } from './support/query-plan.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
let first: TestOrganization;
const ORGANIZATIONS = 12;
const EVENTS_EACH = 400;

beforeAll(async () => {
  server = await startServer();
  const organizations: TestOrganization[] = [];
  for (let i = 0; i < ORGANIZATIONS; i++) organizations.push(await createOrganization(server));
  first = organizations[0]!;
  const { db } = server.context.database;
  // As a trail grows: organizations of about the same size, each one's events in runs, the first one's oldest.
  // The planner then expects each organization's events anywhere in the table, which they are not.
  for (const [index, organization] of organizations.entries()) {
    await db.execute(sql`
      INSERT INTO audit_events (id, organization_id, action, actor_kind, target_type, target_id, created_at)
      SELECT ${`e${index}_`} || g, ${organization.id}, 'project.updated', 'system', 'project', 'p_' || g, now()
      FROM generate_series(1, ${EVENTS_EACH}::int) g`);
  }
  await db.execute(sql`ANALYZE audit_events`);
}, 120_000);
afterAll(() => server.close());

describe("an organization's audit page, newest first", () => {
  it("is read from the organization's own index range, skipping none of another organization's events", async () => {
    // The shape of the page's read (src/modules/audit/audit.repo.ts): an organization, newest first, a limit.
    const result = await server.context.database.db.execute(sql`
      EXPLAIN (ANALYZE, FORMAT JSON)
      SELECT id FROM audit_events WHERE organization_id = ${first.id} ORDER BY seq DESC LIMIT 51`);
    const plan = (result as unknown as { rows: Array<{ 'QUERY PLAN': unknown }> }).rows[0]?.['QUERY PLAN'];
    const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as Array<{ Plan: PlanNode }>;
    const nodes = nodesOf(parsed[0]!.Plan);
    const skipped = nodes.reduce((sum, node) => sum + (node['Rows Removed by Filter'] ?? 0), 0);
    expect(skipped, JSON.stringify(nodes.map((node) => [node['Node Type'], node['Index Name']]))).toBe(0);
  });

  it("answers the oldest organization's page with its own events, newest first", async () => {
    const res = await server.request<{ data: Array<{ id: string }> }>(
      'GET',
      `/api/v1/organizations/${first.slug}/audit-events`,
      { key: first.ownerKey },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((event) => event.id).slice(0, 3)).toEqual(['e0_400', 'e0_399', 'e0_398']);
  });
});
