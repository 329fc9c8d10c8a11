import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONCURRENCY } from '../../src/http/concurrency.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { http } from '../support/http.js';
import { type CadreProcess, startCadre } from '../support/process.js';
import { startServer, type TestServer } from '../support/server.js';
import {
  type ExpertAnswer,
  expertBody,
  invariantViolations,
  keyPath,
  lastPublished,
  latestHolders,
  published,
  uniqueName,
} from './helpers.js';

// A second Cadre *process* on the same PostgreSQL database: its own pool, LISTEN connection and read cache.
// (PGlite in memory cannot be shared between processes; the same properties are tested between two
// instances on one embedded database in cache.test.ts and concurrency.test.ts.)
describe('registry across two processes sharing one PostgreSQL database', () => {
  let a: TestServer;
  let other: CadreProcess;
  let org: TestOrganization;
  const get = (key: string) => http<ExpertAnswer>(other.url, 'GET', keyPath(key));

  beforeAll(async () => {
    // Twenty publishes at once queue for each instance's slots; on a busy machine the queue may outlast the
    // default 2 s wait (429 "too many requests in flight"), which is not what this test is about.
    a = await startServer({ concurrency: { ...DEFAULT_CONCURRENCY, queueMs: 60_000 } });
    other = await startCadre({
      DATABASE_URL: a.db.url!,
      CADRE_ADMIN_TOKEN: 'p'.repeat(40),
      CADRE_CONCURRENCY_QUEUE_MS: '60000',
    });
    org = await createOrganization(a);
  });
  afterAll(async () => {
    await other.stop();
    await a.close();
  });

  /** The other process answers `expected` once it has applied the change (bounded wait, no timing claim). */
  async function eventually(read: () => Promise<unknown>, expected: unknown) {
    let last: unknown;
    for (let i = 0; i < 200; i++) {
      last = await read();
      if (JSON.stringify(last) === JSON.stringify(expected)) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(last).toEqual(expected);
  }

  it("an update or delete in one process reaches the other process's read cache", async () => {
    const name = uniqueName('proc');
    await published(a, org.ownerKey, expertBody(name, '1.0.0'));
    await eventually(async () => (await get(name)).body.data?.expert.tags, ['latest']);
    // Cached now in the other process; change it here.
    const res = await a.request('POST', keyPath(name), { key: org.ownerKey, body: { tags: ['moved'] } });
    expect(res.status).toBe(200);
    await eventually(async () => (await get(name)).body.data?.expert.tags, ['latest', 'moved']);
    expect((await a.request('DELETE', keyPath(name), { key: org.ownerKey })).status).toBe(200);
    await eventually(async () => (await get(name)).status, 404);
  });

  it('parallel publishes split across both processes keep one latest, the last committed', async () => {
    const name = uniqueName('procrace');
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        http(i % 2 ? other.url : a.url, 'POST', '/registry/experts', {
          key: org.ownerKey,
          body: expertBody(name, `2.0.${i}`),
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    const same = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        http(i % 2 ? other.url : a.url, 'POST', '/registry/experts', {
          key: org.ownerKey,
          body: expertBody(name, '9.9.9'),
        }),
      ),
    );
    expect(same.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(400)]);
    const reader = await startServer({ database: a.db.database, registryCacheEntries: 0 });
    try {
      expect(await latestHolders(reader, name)).toEqual([await lastPublished(a.db.database, name)]);
    } finally {
      await reader.close();
    }
    expect(await invariantViolations(a.db.database)).toEqual([]);
  });
});
