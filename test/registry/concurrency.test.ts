import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { onPostgres } from '../support/database.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import {
  countRows,
  expertBody,
  invariantViolations,
  keyPath,
  lastPublished,
  latestHolders,
  publish,
  published,
  uniqueName,
} from './helpers.js';

// Two Cadre instances on one database: two processes' worth of pools and listeners on PostgreSQL
// (a reopened handle), two apps sharing the one embedded database on PGlite. Requests alternate between
// them, all fired at once.
let a: TestServer;
let b: TestServer;
// Verification reads go to an instance without a read cache: what it answers is what the database holds.
let reader: TestServer;
let secondDatabase: Database | undefined;
let org: TestOrganization;
let rival: TestOrganization;
const pick = (i: number) => (i % 2 === 0 ? a : b);

beforeAll(async () => {
  a = await startServer();
  secondDatabase = onPostgres() ? await a.db.reopen() : undefined;
  b = await startServer({ database: secondDatabase ?? a.db.database });
  reader = await startServer({ database: a.db.database, registryCacheEntries: 0 });
  [org, rival] = await Promise.all([createOrganization(a), createOrganization(a)]);
});
afterAll(async () => {
  await reader.close();
  await b.close();
  await secondDatabase?.close();
  await a.close();
});

describe('registry invariants under concurrent requests', () => {
  it('50 parallel publishes of distinct versions: all succeed, one latest, the last committed', async () => {
    const name = uniqueName('race');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => publish(pick(i), org.ownerKey, expertBody(name, `1.0.${i}`))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    const holders = await latestHolders(reader, name);
    expect(holders).toHaveLength(1);
    expect(holders[0]).toBe(await lastPublished(a.db.database, name));
    expect(await countRows(a.db.database, name)).toBe(50);
    expect(await invariantViolations(a.db.database)).toEqual([]);
  });

  it('20 parallel publishes of the same name@version: exactly one 200, the rest 400, one row', async () => {
    const name = uniqueName('same');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => publish(pick(i), org.ownerKey, expertBody(name, '1.0.0'))),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(400)]);
    expect(await countRows(a.db.database, name)).toBe(1);
    expect(await latestHolders(reader, name)).toEqual(['1.0.0']);
  });

  it('publishes racing deletes of the same name never leave it without latest or with two', async () => {
    const name = uniqueName('churn');
    await published(a, org.ownerKey, expertBody(name, '0.0.1'));
    for (let round = 0; round < 6; round++) {
      const requests = [];
      for (let i = 0; i < 6; i++) {
        requests.push(publish(pick(i), org.ownerKey, expertBody(name, `${round + 1}.0.${i}`)));
        // Delete whatever is latest right now, and a version of the previous round.
        requests.push(pick(i + 1).request('DELETE', keyPath(name), { key: org.ownerKey }));
        if (round > 0) {
          requests.push(pick(i).request('DELETE', keyPath(`${name}@${round}.0.${i}`), { key: org.ownerKey }));
        }
      }
      const results = await Promise.all(requests);
      for (const res of results) expect([200, 404], res.text).toContain(res.status);
      const remaining = await countRows(a.db.database, name);
      const holders = await latestHolders(reader, name);
      expect(holders).toHaveLength(remaining > 0 ? 1 : 0);
      if (remaining > 0) expect(holders[0]).toBe(await lastPublished(a.db.database, name));
      expect(await invariantViolations(a.db.database)).toEqual([]);
    }
  });

  it('a publish delegating to a version racing the delete of that version: never both succeed', async () => {
    for (let round = 0; round < 8; round++) {
      const target = uniqueName('target');
      await published(a, org.ownerKey, expertBody(target, '1.0.0'));
      await published(a, org.ownerKey, expertBody(target, '2.0.0'));
      const [pub, del] = await Promise.all([
        publish(
          pick(round),
          rival.ownerKey,
          expertBody(uniqueName('user'), '1.0.0', { delegates: [`${target}@1.0.0`] }),
        ),
        pick(round + 1).request('DELETE', keyPath(`${target}@1.0.0`), { key: org.ownerKey }),
      ]);
      expect([pub.status, del.status].sort(), `${pub.text} ${del.text}`).toEqual([200, 400]);
    }
  });

  it('publishes of two names delegating to each other at once both succeed (names are locked in order)', async () => {
    for (let round = 0; round < 3; round++) {
      const x = uniqueName('x');
      const y = uniqueName('y');
      await published(a, org.ownerKey, expertBody(x, '1.0.0'));
      await published(a, org.ownerKey, expertBody(y, '1.0.0'));
      // Exact versions each way: both lock both names, yet no delegation cycle forms (delegating to the
      // names' latest would close one, and one of the two would be refused: test/registry/cycles.test.ts).
      const results = await Promise.all([
        publish(a, org.ownerKey, expertBody(x, '2.0.0', { delegates: [`${y}@1.0.0`] })),
        publish(b, org.ownerKey, expertBody(y, '2.0.0', { delegates: [`${x}@1.0.0`] })),
      ]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
    }
  });

  it('two organizations racing to claim one unscoped name: exactly one owner', async () => {
    for (let round = 0; round < 10; round++) {
      const name = uniqueName('claim');
      const [first, second] = await Promise.all([
        publish(pick(round), org.ownerKey, expertBody(name, '1.0.0')),
        publish(pick(round + 1), rival.ownerKey, expertBody(name, '1.0.0')),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 403]);
      const winner = first.status === 200 ? org : rival;
      const loser = winner === org ? rival : org;
      const expert = (first.status === 200 ? first : second).body.data.expert;
      expect(expert.owner).toMatchObject({ organizationId: winner.id });
      expect((await publish(b, loser.ownerKey, expertBody(name, '2.0.0'))).status).toBe(403);
      expect((await publish(b, winner.ownerKey, expertBody(name, '2.0.0'))).status).toBe(200);
    }
  });

  it('parallel tag updates: each tag ends with exactly one holder', async () => {
    const name = uniqueName('tags');
    for (let i = 0; i < 5; i++) await published(a, org.ownerKey, expertBody(name, `1.0.${i}`));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        pick(i).request('POST', keyPath(`${name}@1.0.${i % 5}`), {
          key: org.ownerKey,
          body: { tags: i % 2 === 0 ? ['stable', 'beta'] : ['stable'] },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const versions = await reader.request<{ data: { versions: Array<{ tags: string[] }> } }>(
      'GET',
      keyPath(name, '/versions'),
    );
    const all = versions.body.data.versions.flatMap((v) => v.tags);
    expect(all.filter((t) => t === 'stable')).toHaveLength(1);
    expect(all.filter((t) => t === 'latest')).toHaveLength(1);
    expect(await invariantViolations(a.db.database)).toEqual([]);
  });
});
