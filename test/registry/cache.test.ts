import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { REGISTRY_CHANGED } from '../../src/modules/registry/registry.cache.js';
import { expectRegistryError } from '../support/assertions.js';
import { onPostgres } from '../support/database.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { expertBody, getExpert, keyPath, published, uniqueName } from './helpers.js';

// Instance A writes, instance B reads from its cache. On PostgreSQL B has its own pool and LISTEN
// connection on the same database (what a second process has); on PGlite both apps share the database.
let a: TestServer;
let b: TestServer;
let uncached: TestServer;
let secondDatabase: Database | undefined;
let org: TestOrganization;

beforeAll(async () => {
  a = await startServer();
  secondDatabase = onPostgres() ? await a.db.reopen() : undefined;
  b = await startServer({ database: secondDatabase ?? a.db.database });
  uncached = await startServer({ database: a.db.database, registryCacheEntries: 0 });
  org = await createOrganization(a);
});
afterAll(async () => {
  await uncached.close();
  await b.close();
  await secondDatabase?.close();
  await a.close();
});

/** Resolves once `server` has received the change notification for `name` (after its cache saw it). */
function notified(server: TestServer, name: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = server.context.bus.subscribe({
      onChange: (change) => {
        if (change.topic === REGISTRY_CHANGED && change.name === name) {
          stop();
          resolve();
        }
      },
      reset: () => undefined,
    });
  });
}

/** Changes a row behind the service's back (no notification): only a cache keeps serving the old text. */
const sneakyDescription = (name: string, description: string) =>
  a.db.database.db.execute(
    sql`UPDATE registry_experts SET description = ${description} WHERE name = ${name}`,
  );

/** Publishes on A and waits until B has seen it, so B's next reads are not racing that notification. */
async function publishedEverywhere(name: string, version: string, description: string) {
  const bSaw = notified(b, name);
  await published(a, org.ownerKey, expertBody(name, version, { description }));
  await bSaw;
}

const description = async (server: TestServer, key: string) =>
  (await getExpert(server, key)).body.data.expert.description;

describe('registry read cache', () => {
  it('serves repeated reads from memory (a change made behind its back is not seen)', async () => {
    const name = uniqueName('cached');
    await publishedEverywhere(name, '1.0.0', 'original');
    expect(await description(b, `${name}@1.0.0`)).toBe('original');
    await sneakyDescription(name, 'sneaky');
    expect(await description(b, `${name}@1.0.0`)).toBe('original');
    // With the cache disabled every read goes to the database.
    expect(await description(uncached, `${name}@1.0.0`)).toBe('sneaky');
  });

  it('an update on one instance invalidates every instance, the writer at once', async () => {
    const name = uniqueName('upd');
    await publishedEverywhere(name, '1.0.0', 'v1');
    for (const key of [name, `${name}@1.0.0`, `${name}@latest`]) {
      expect(await description(a, key)).toBe('v1');
      expect(await description(b, key)).toBe('v1');
    }
    expect((await b.request('GET', keyPath(name, '/versions'))).status).toBe(200);
    await sneakyDescription(name, 'v2'); // both caches now hold a record older than the database
    const bSaw = notified(b, name);
    const res = await a.request('POST', keyPath(`${name}@1.0.0`), {
      key: org.ownerKey,
      body: { tags: ['fresh'] },
    });
    expect(res.status).toBe(200);
    // The writing instance forgot the name before answering: no waiting.
    expect(await description(a, name)).toBe('v2');
    expect((await getExpert(a, `${name}@1.0.0`)).body.data.expert.tags).toEqual(['latest', 'fresh']);
    await bSaw;
    const versions = await b.request<{ data: { versions: Array<{ tags: string[] }> } }>(
      'GET',
      keyPath(name, '/versions'),
    );
    expect(versions.body.data.versions[0]?.tags).toEqual(['latest', 'fresh']);
    for (const key of [name, `${name}@1.0.0`, `${name}@latest`]) {
      const got = await getExpert(b, key);
      expect(got.body.data.expert.description).toBe('v2');
      expect(got.body.data.expert.tags).toEqual(['latest', 'fresh']);
    }
  });

  it('a publish moves latest on every instance; a delete makes every instance answer 404', async () => {
    const name = uniqueName('del');
    await published(a, org.ownerKey, expertBody(name, '1.0.0'));
    expect((await getExpert(b, name)).body.data.expert.version).toBe('1.0.0');
    expect((await getExpert(b, `${name}@1.0.0`)).status).toBe(200);
    let bSaw = notified(b, name);
    await published(a, org.ownerKey, expertBody(name, '2.0.0'));
    await bSaw;
    expect((await getExpert(b, name)).body.data.expert.version).toBe('2.0.0');
    expect((await getExpert(b, `${name}@1.0.0`)).body.data.expert.tags).toEqual([]);
    bSaw = notified(b, name);
    expect((await a.request('DELETE', keyPath(`${name}@1.0.0`), { key: org.ownerKey })).status).toBe(200);
    await bSaw;
    expectRegistryError(await getExpert(b, `${name}@1.0.0`), 404);
    expectRegistryError(await getExpert(a, `${name}@1.0.0`), 404);
  });

  it('a failed write changes nothing and the cached record stays valid', async () => {
    const name = uniqueName('nochange');
    await published(a, org.ownerKey, expertBody(name, '1.0.0'));
    const before = await getExpert(b, name);
    const res = await a.request('POST', keyPath(name), { key: org.ownerKey, body: { status: 'available' } });
    expect(res.status).toBe(400);
    const after = await getExpert(b, name);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  });

  it('list answers are cached and dropped on every instance by a change to any name', async () => {
    const name = uniqueName('listed');
    await publishedEverywhere(name, '1.0.0', 'listed v1');
    type ListAnswer = { data: { experts: Array<{ name: string; description: string }> } };
    const listed = async (server: TestServer) =>
      (await server.request<ListAnswer>('GET', `/registry/experts?filter=${name}`)).body.data.experts.map(
        (e) => e.description,
      );
    expect(await listed(b)).toEqual(['listed v1']);
    await sneakyDescription(name, 'listed v2');
    expect(await listed(b)).toEqual(['listed v1']);
    expect(await listed(uncached)).toEqual(['listed v2']);
    // A change to another name also drops lists (any list may include it).
    const other = uniqueName('other');
    const bSaw = notified(b, other);
    await published(a, org.ownerKey, expertBody(other, '1.0.0'));
    await bSaw;
    expect(await listed(b)).toEqual(['listed v2']);
  });
});

describe('uncached reads, batched per event-loop turn', () => {
  it('parallel reads of many keys each get their own record (versions, latest, tags, unknown keys)', async () => {
    const names = [uniqueName('batch-a'), uniqueName('batch-b')];
    for (const name of names) {
      await published(a, org.ownerKey, expertBody(name, '1.0.0', { description: `${name} one` }));
      await published(
        a,
        org.ownerKey,
        expertBody(name, '2.0.0', { description: `${name} two`, tags: ['beta'] }),
      );
    }
    const expected: Array<[string, string | null]> = [];
    for (const name of names) {
      expected.push(
        [`${name}@1.0.0`, `${name} one`],
        [`${name}@2.0.0`, `${name} two`],
        [name, `${name} two`],
        [`${name}@latest`, `${name} two`],
        [`${name}@beta`, `${name} two`],
        [`${name}@3.0.0`, null],
      );
    }
    expected.push([uniqueName('never-published'), null]);
    // Each key asked three times at once: the same turn's reads share a query, duplicates included.
    const asked = [...expected, ...expected, ...expected];
    const answers = await Promise.all(asked.map(([key]) => getExpert(uncached, key)));
    answers.forEach((res, index) => {
      const [key, description] = asked[index]!;
      if (description === null) expectRegistryError(res, 404);
      else expect({ key, description: res.body.data.expert.description }).toEqual({ key, description });
    });
  });

  it('a read that starts after a change commits sees it, even among many reads in flight', async () => {
    const name = uniqueName('fresh');
    await published(a, org.ownerKey, expertBody(name, '1.0.0', { description: 'before' }));
    for (let round = 0; round < 5; round++) {
      const description = `after ${round}`;
      await sneakyDescription(name, description);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => getExpert(uncached, `${name}@1.0.0`)),
      );
      expect(new Set(answers.map((res) => res.body.data.expert.description))).toEqual(new Set([description]));
    }
  });
});
