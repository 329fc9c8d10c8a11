import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { DELEGATION_DEPTH_LIMIT } from '../../src/modules/supply-chain/delegation-graph.js';
import { expectRegistryError } from '../support/assertions.js';
import { onPostgres } from '../support/database.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { expertBody, invariantViolations, keyPath, publish, published, uniqueName } from './helpers.js';

// Two instances on one database (two pools on PostgreSQL), so racing publishes really run at once there.
let a: TestServer;
let b: TestServer;
let secondDatabase: Database | undefined;
let org: TestOrganization;
let rival: TestOrganization;

beforeAll(async () => {
  a = await startServer();
  secondDatabase = onPostgres() ? await a.db.reopen() : undefined;
  b = await startServer({ database: secondDatabase ?? a.db.database });
  [org, rival] = await Promise.all([createOrganization(a), createOrganization(a)]);
});
afterAll(async () => {
  await b.close();
  await secondDatabase?.close();
  await a.close();
});

const reasonOf = (res: { body: unknown }) => (res.body as { reason: string }).reason;

/** Every delegation cycle in the stored registry, each delegate resolved as a read would resolve it now. */
async function storedCycles(database: Database): Promise<string[][]> {
  const result = (await database.db.execute(sql`
    SELECT e.id, e.name, e.version, e.delegates, e.is_latest AS "isLatest",
      coalesce((SELECT array_agg(t.tag) FROM registry_tags t WHERE t.expert_id = e.id), '{}') AS tags
    FROM registry_experts e`)) as unknown as {
    rows: Array<{
      id: string;
      name: string;
      version: string;
      delegates: string[];
      isLatest: boolean;
      tags: string[];
    }>;
  };
  const byKey = new Map<string, string>();
  for (const row of result.rows) {
    byKey.set(`${row.name}@${row.version}`, row.id);
    for (const tag of row.tags) byKey.set(`${row.name}@${tag}`, row.id);
    if (row.isLatest) byKey.set(row.name, row.id).set(`${row.name}@latest`, row.id);
  }
  const rows = new Map(result.rows.map((row) => [row.id, row]));
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (id: string, path: string[]) => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'open') {
      cycles.push(path.slice(path.indexOf(id)));
      return;
    }
    state.set(id, 'open');
    for (const delegate of rows.get(id)!.delegates) {
      const target = byKey.get(delegate);
      if (target) visit(target, [...path, id]);
    }
    state.set(id, 'done');
  };
  for (const id of rows.keys()) visit(id, []);
  return cycles;
}

describe('delegation cycles', () => {
  it('refuses a publish that closes a cycle through latest, naming the versions (A@2 → B@1 → A@2)', async () => {
    const [x, y] = [uniqueName('a'), uniqueName('b')];
    await published(a, org.ownerKey, expertBody(x, '1.0.0'));
    // Another organization's Expert delegates to x's latest (1.0.0 now).
    await published(a, rival.ownerKey, expertBody(y, '1.0.0', { delegates: [x] }));
    // x@2.0.0 would become latest, so y@1.0.0 → x would name it: a cycle.
    const res = await publish(a, org.ownerKey, expertBody(x, '2.0.0', { delegates: [`${y}@1.0.0`] }));
    expectRegistryError(res, 400);
    expect(reasonOf(res)).toBe(`${x}@2.0.0 closes a delegation cycle: ${x}@2.0.0 → ${y}@1.0.0 → ${x}@2.0.0`);
    // Nothing was written: 2.0.0 is still free, 1.0.0 still latest.
    expect((await a.request('GET', keyPath(`${x}@2.0.0`))).status).toBe(404);
    expect((await published(a, org.ownerKey, expertBody(x, '2.0.0'))).version).toBe('2.0.0');
    expect(await invariantViolations(a.context.database)).toEqual([]);
  });

  it('names every version of a longer cycle, through tags and exact versions', async () => {
    const [x, y, z] = [uniqueName('a'), uniqueName('b'), uniqueName('c')];
    await published(a, org.ownerKey, expertBody(x, '1.0.0', { tags: ['stable'] }));
    await published(a, org.ownerKey, expertBody(y, '1.0.0', { delegates: [`${x}@stable`] }));
    await published(a, org.ownerKey, expertBody(z, '3.1.0', { delegates: [`${y}@1.0.0`] }));
    const res = await publish(a, org.ownerKey, expertBody(x, '2.0.0', { delegates: [z], tags: ['stable'] }));
    expectRegistryError(res, 400);
    expect(reasonOf(res)).toContain(`${x}@2.0.0 → ${z}@3.1.0 → ${y}@1.0.0 → ${x}@2.0.0`);
  });

  it('refuses a publish that a floating delegate reaches back to, though no tag has moved yet', async () => {
    const [x, y] = [uniqueName('a'), uniqueName('b')];
    await published(a, org.ownerKey, expertBody(x, '1.0.0', { tags: ['stable'] }));
    await published(a, org.ownerKey, expertBody(y, '1.0.0', { delegates: [`${x}@stable`] }));
    // `stable` (like `latest`) may move onto x@2.0.0 by a tag update alone: y@1.0.0 → x@stable reaches it.
    const res = await publish(a, org.ownerKey, expertBody(x, '2.0.0', { delegates: [`${y}@1.0.0`] }));
    expectRegistryError(res, 400);
    expect(reasonOf(res)).toBe(`${x}@2.0.0 closes a delegation cycle: ${x}@2.0.0 → ${y}@1.0.0 → ${x}@2.0.0`);
  });

  it('allows delegating to a version that delegates to an exact older version; deletes and tags then check nothing', async () => {
    const [x, y] = [uniqueName('a'), uniqueName('b')];
    await published(a, org.ownerKey, expertBody(x, '1.0.0', { tags: ['stable'] }));
    await published(a, rival.ownerKey, expertBody(y, '1.0.0', { delegates: [`${x}@1.0.0`] }));
    // x@2.0.0 → y@1.0.0 → x@1.0.0 (exactly): no way back to x@2.0.0.
    await published(a, org.ownerKey, expertBody(x, '2.0.0', { delegates: [`${y}@1.0.0`] }));
    const tagged = await a.request('POST', keyPath(`${x}@2.0.0`), {
      key: org.ownerKey,
      body: { tags: ['stable'] },
    });
    expect(tagged.status, tagged.text).toBe(200);
    const deleted = await a.request('DELETE', keyPath(`${x}@2.0.0`), { key: org.ownerKey });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await storedCycles(a.context.database)).toEqual([]);
    expect(await invariantViolations(a.context.database)).toEqual([]);
  });

  it(`refuses a chain longer than ${DELEGATION_DEPTH_LIMIT} levels, naming the limit`, async () => {
    const names = Array.from({ length: DELEGATION_DEPTH_LIMIT + 2 }, () => uniqueName('chain'));
    await published(a, org.ownerKey, expertBody(names[0]!, '1.0.0'));
    // names[i] → names[i - 1]: the chain from names[i] is i levels deep.
    for (let i = 1; i <= DELEGATION_DEPTH_LIMIT; i++) {
      await published(
        a,
        org.ownerKey,
        expertBody(names[i]!, '1.0.0', { delegates: [`${names[i - 1]}@1.0.0`] }),
      );
    }
    const last = names[DELEGATION_DEPTH_LIMIT + 1]!;
    const res = await publish(
      a,
      org.ownerKey,
      expertBody(last, '1.0.0', { delegates: [`${names[DELEGATION_DEPTH_LIMIT]}@1.0.0`] }),
    );
    expectRegistryError(res, 400);
    expect(reasonOf(res)).toBe(
      `${last}@1.0.0 starts a delegation chain more than ${DELEGATION_DEPTH_LIMIT} levels deep ` +
        `(at least ${DELEGATION_DEPTH_LIMIT + 1}); the limit is ${DELEGATION_DEPTH_LIMIT}`,
    );
  });

  it('never walks the graph on a tag or status update: one on a stored 100-long cycle goes through', async () => {
    // A chain longer than any publish may start, closed into a cycle, as no publish could store it: each
    // version linked to the previous one in the database directly. A tag update that walked the graph would
    // find the cycle and refuse; a walk without a bound would never end.
    const names = Array.from({ length: 100 }, () => uniqueName('long'));
    for (const name of names) await published(a, org.ownerKey, expertBody(name, '1.0.0'));
    for (let i = 1; i < names.length; i++) {
      await a.context.database.db.execute(
        sql`UPDATE registry_experts SET delegates = ARRAY[${`${names[i - 1]}@1.0.0`}]::text[] WHERE name = ${names[i]}`,
      );
    }
    const tip = names.at(-1)!;
    const closeCycle = (delegates: string[]) =>
      a.context.database.db.execute(
        sql`UPDATE registry_experts SET delegates = ${sql`ARRAY[${sql.join(
          delegates.map((d) => sql`${d}`),
          sql`, `,
        )}]`}::text[] WHERE name = ${names[0]}`,
      );
    await closeCycle([`${tip}@1.0.0`]);
    a.context.registry.cache.invalidate(tip);
    const tagged = await a.request('POST', keyPath(`${tip}@1.0.0`), {
      key: org.ownerKey,
      body: { tags: ['stable'] },
    });
    expect(tagged.status, tagged.text).toBe(200);
    const status = await a.request('POST', keyPath(`${tip}@1.0.0`), {
      key: org.ownerKey,
      body: { status: 'deprecated' },
    });
    expect(status.status, status.text).toBe(200);
    // A publish on top of it does walk, and stops at the limit.
    const res = await publish(a, org.ownerKey, expertBody(uniqueName('top'), '1.0.0', { delegates: [tip] }));
    expectRegistryError(res, 400);
    expect(reasonOf(res)).toContain(`the limit is ${DELEGATION_DEPTH_LIMIT}`);
    await closeCycle([]); // the suite's later checks find no stored cycle
  });

  it('two publishes racing to close a cycle: at most one succeeds, and no cycle is stored', async () => {
    for (let round = 0; round < 5; round++) {
      const [x, y] = [uniqueName('a'), uniqueName('b')];
      await published(a, org.ownerKey, expertBody(x, '1.0.0'));
      await published(a, rival.ownerKey, expertBody(y, '1.0.0'));
      const results = await Promise.all([
        publish(a, org.ownerKey, expertBody(x, '2.0.0', { delegates: [y] })),
        publish(b, rival.ownerKey, expertBody(y, '2.0.0', { delegates: [x] })),
      ]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses, results.map((r) => r.text).join('\n')).toEqual([200, 400]);
      expect(reasonOf(results.find((r) => r.status === 400)!)).toContain('closes a delegation cycle');
    }
    expect(await storedCycles(a.context.database)).toEqual([]);
  });

  it('four publishes racing to close a four-version cycle: never all four, no cycle stored, no 500', async () => {
    for (let round = 0; round < 10; round++) {
      const names = [uniqueName('p'), uniqueName('q'), uniqueName('r'), uniqueName('s')];
      for (const name of names) await published(a, org.ownerKey, expertBody(name, '1.0.0'));
      const results = await Promise.all(
        names.map((name, i) =>
          publish(
            i % 2 ? b : a,
            org.ownerKey,
            expertBody(name, '2.0.0', { delegates: [names[(i + 1) % 4]!] }),
          ),
        ),
      );
      for (const res of results) expect([200, 400], res.text).toContain(res.status);
      expect(results.filter((r) => r.status === 200).length).toBeLessThan(4);
    }
    expect(await storedCycles(a.context.database)).toEqual([]);
    expect(await invariantViolations(a.context.database)).toEqual([]);
  });
});
