import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/database.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { http } from '../support/http.js';
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
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function startProcess(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      CADRE_LOG_LEVEL: 'info',
      CADRE_ADMIN_TOKEN: 'p'.repeat(40),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start:\n${output}`)), 30_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /"address":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
  return { url, child };
}

describe.runIf(onPostgres())('registry across two processes sharing one PostgreSQL database', () => {
  let a: TestServer;
  let other: { url: string; child: ChildProcess };
  let org: TestOrganization;
  const get = (key: string) => http<ExpertAnswer>(other.url, 'GET', keyPath(key));

  beforeAll(async () => {
    a = await startServer();
    other = await startProcess(a.db.url!);
    org = await createOrganization(a);
  });
  afterAll(async () => {
    other.child.kill('SIGTERM');
    await once(other.child, 'exit');
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
