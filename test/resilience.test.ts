import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { expertBody, invariantViolations } from './registry/helpers.js';
import { createTestDatabase, onPostgres, type TestDatabase } from './support/database.js';
import { http } from './support/http.js';
import { ADMIN, createKeyBody, newRecord, ownerKeyOf, runLoad } from './support/load.js';
import { type CadreProcess, startCadre } from './support/process.js';
import { type PostgresServer, type RedisServer, startPostgres, startRedis } from './support/servers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quiet = { CADRE_ADMIN_TOKEN: ADMIN, CADRE_BOOTSTRAP: 'off', CADRE_LOG_REQUESTS: 'false' };

/** Figures for docs/operations.md, printed by each test. */
const report = (name: string, figures: Record<string, unknown>) =>
  console.log(`[resilience] ${name} ${JSON.stringify(figures)}`);

interface Row {
  id: string;
  start: string;
  digest: string;
  audited: boolean;
}

async function keysOf(query: (sql: string) => Promise<Row[]>): Promise<Row[]> {
  return query(`SELECT k.id, k.start, k.digest,
      EXISTS (SELECT 1 FROM audit_events e WHERE e.target_id = k.id AND e.action = 'api_key.created') AS audited
    FROM api_keys k WHERE k.name LIKE 'crash-%'`);
}

describe(`crash safety: kill -9 during 1,000 concurrent publishes and API key creations (${onPostgres() ? 'PostgreSQL' : 'embedded PGlite'})`, () => {
  let dataDir: string;
  let testDb: TestDatabase | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cadre-crash-'));
    if (onPostgres()) testDb = await createTestDatabase();
  });
  const started: CadreProcess[] = [];
  afterAll(async () => {
    // A failed expectation must not leave a server running.
    for (const cadre of started) {
      if (cadre.child.exitCode === null && cadre.child.signalCode === null) await cadre.stop('SIGKILL');
    }
    await testDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write after restart, and nothing half-written', async () => {
    const env = {
      ...quiet,
      CADRE_DATA_DIR: dataDir,
      CADRE_RATE_LIMIT_WRITE: '100000',
      ...(testDb?.url ? { DATABASE_URL: testDb.url } : {}),
    };
    const first = await startCadre(env);
    started.push(first);
    const owner = await ownerKeyOf(first.url, 'crash');
    const acknowledged = new Map<string, string>();
    const published = new Set<string>();
    let failed = 0;
    // Even requests create API keys, odd ones publish versions of ten names (publishes to one name contend).
    const requests = Array.from({ length: 1_000 }, (_, i) => {
      if (i % 2 === 1) {
        const name = `@crash/crash-expert-${i % 10}`;
        const version = `1.0.${i}`;
        return http(first.url, 'POST', '/registry/experts', {
          key: owner.key,
          body: expertBody(name, version),
        }).then(
          (res) => {
            if (res.status === 200) published.add(`${name}@${version}`);
            else failed++;
          },
          () => {
            failed++;
          },
        );
      }
      return http<{ data: { id: string; key: string } }>(first.url, 'POST', '/api/v1/api-keys', {
        key: owner.key,
        body: createKeyBody(`crash-${i}`),
      }).then(
        (res) => {
          if (res.status === 200) acknowledged.set(res.body.data.id, res.body.data.key);
          else failed++;
        },
        () => {
          failed++;
        },
      );
    });
    // Kill once a good share has been acknowledged, while the rest are in flight.
    for (let i = 0; i < 300 && acknowledged.size + published.size < 150; i++) await sleep(10);
    first.child.kill('SIGKILL');
    await Promise.all(requests);
    expect(acknowledged.size).toBeGreaterThan(0);
    expect(published.size).toBeGreaterThan(0);
    expect(acknowledged.size + published.size).toBeLessThan(1_000);

    const second = await startCadre(env);
    started.push(second);
    // Acknowledged keys authenticate after the restart (a sample: every 10th).
    const sample = [...acknowledged.values()].filter((_, i) => i % 10 === 0);
    for (const key of sample) {
      expect((await http(second.url, 'GET', '/api/v1/api-keys?limit=1', { key })).status).toBe(200);
    }
    expect(await second.stop()).toBe(0);
    for (const key of acknowledged.values()) expect(first.output() + second.output()).not.toContain(key);

    // Straight from the database: every acknowledged key is there, each with its audit event, none partial.
    const database = await openDatabase(
      testDb?.url ? { url: testDb.url } : { dataDir: join(dataDir, 'pgdata') },
    );
    const rows = await keysOf(
      async (text) => ((await database.db.execute(sql.raw(text))) as unknown as { rows: Row[] }).rows,
    );
    const experts = (await database.db.execute(
      sql`SELECT name || '@' || version AS key FROM registry_experts WHERE name LIKE '@crash/%'`,
    )) as unknown as { rows: Array<{ key: string }> };
    const violations = await invariantViolations(database);
    await database.close();
    const presentExperts = new Set(experts.rows.map((row) => row.key));
    expect([...published].filter((key) => !presentExperts.has(key))).toEqual([]);
    // One latest per name (the most recently published), tags and counts consistent: nothing half-written.
    expect(violations).toEqual([]);
    const present = new Set(rows.map((row) => row.id));
    const missing = [...acknowledged.keys()].filter((id) => !present.has(id));
    expect(missing).toEqual([]);
    expect(rows.filter((row) => !row.audited || !row.digest || !row.start)).toEqual([]);
    report('crash', {
      database: onPostgres() ? 'postgres' : 'pglite',
      sent: 1_000,
      acknowledged: acknowledged.size,
      acknowledgedPresent: acknowledged.size - missing.length,
      presentTotal: rows.length,
      presentNotAcknowledged: rows.length - (acknowledged.size - missing.length),
      halfWritten: 0,
      publishesAcknowledged: published.size,
      publishesPresent: published.size,
      expertVersionsPresent: presentExperts.size,
      registryInvariantViolations: 0,
      failedOrCut: failed,
    });
  });
});

describe('real PostgreSQL and Redis of the test’s own', () => {
  let postgres: PostgresServer;
  let redis: RedisServer;
  const running: CadreProcess[] = [];
  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  });
  afterAll(async () => {
    for (const cadre of running) {
      if (cadre.child.exitCode === null && cadre.child.signalCode === null) await cadre.stop('SIGKILL');
    }
    await redis?.stop();
    postgres?.destroy();
  });

  it('two instances share rate limits through Redis and see each other’s revocations at once', async () => {
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('CREATE DATABASE cadre_two');
    await admin.end();
    const url = postgres.url.replace(/\/postgres$/, '/cadre_two');
    const env = { ...quiet, DATABASE_URL: url, REDIS_URL: redis.url, CADRE_RATE_LIMIT_READ: '10' };
    const a = await startCadre(env);
    running.push(a);
    const b = await startCadre(env);
    running.push(b);
    const owner = await ownerKeyOf(a.url, 'two');

    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await http(i % 2 ? b.url : a.url, 'GET', '/api/v1/api-keys', { key: owner.key });
      statuses.push(res.status);
      remaining.push(res.headers.get('ratelimit-remaining') ?? '');
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0', '0']);

    for (let round = 0; round < 5; round++) {
      const created = await http<{ data: { id: string; key: string } }>(a.url, 'POST', '/api/v1/api-keys', {
        key: owner.key,
        body: createKeyBody(`two-${round}`),
      });
      const { id, key } = created.body.data;
      expect((await http(b.url, 'GET', '/api/v1/api-keys?limit=1', { key })).status).toBe(200);
      expect((await http(a.url, 'DELETE', `/api/v1/api-keys/${id}`, { key: owner.key })).status).toBe(200);
      expect((await http(b.url, 'GET', '/api/v1/api-keys?limit=1', { key })).status).toBe(401);
    }
    await a.stop();
    await b.stop();
  });

  it('answers 503 with Retry-After (never 500) while PostgreSQL is down, and recovers without a restart', async () => {
    const cadre = await startCadre({
      ...quiet,
      DATABASE_URL: postgres.url,
      CADRE_RATE_LIMITS: 'off',
      CADRE_REQUEST_DEADLINE_MS: '5000',
    });
    running.push(cadre);
    const owner = await ownerKeyOf(cadre.url, 'outage');
    const record = newRecord();
    const load = runLoad(cadre.url, owner.key, record, { workers: 6, maxMs: 60_000 });
    await sleep(1_500);
    const before = record.statuses.get(503) ?? 0;
    const downAt = Date.now();
    postgres.stop();
    await sleep(4_000);
    const readyDuringOutage = await http(cadre.url, 'GET', '/readyz').catch((error: unknown) => {
      throw new Error(`Cadre stopped answering during the outage:\n${cadre.output().slice(-4_000)}`, {
        cause: error,
      });
    });
    await postgres.start();
    const upAt = Date.now();
    let recoveredAt = 0;
    for (let i = 0; i < 300 && !recoveredAt; i++) {
      const res = await http(cadre.url, 'GET', '/api/v1/api-keys?limit=1', { key: owner.key });
      if (res.status === 200) recoveredAt = Date.now();
      else await sleep(100);
    }
    await sleep(1_500);
    await load.stop();

    expect(readyDuringOutage.status).toBe(503);
    expect(readyDuringOutage.headers.get('retry-after')).toBeTruthy();
    expect(recoveredAt).toBeGreaterThan(0);
    expect(before).toBe(0);
    expect([...record.statuses.keys()].sort()).toEqual([200, 503]);
    expect(record.missingRetryAfter).toBe(0);
    expect(record.networkErrors).toBe(0);
    expect((await http(cadre.url, 'GET', '/readyz')).status).toBe(200);

    // Every acknowledged write is there; the change-bus listener reconnected (revocations propagate again).
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    const { rows } = await client.query<{ id: string }>("SELECT id FROM api_keys WHERE name LIKE 'load-%'");
    const present = new Set(rows.map((row) => row.id));
    const lost = [...record.acknowledged.keys()].filter((id) => !present.has(id));
    expect(lost).toEqual([]);
    let listeners = 0;
    for (let i = 0; i < 50 && listeners === 0; i++) {
      const result = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'postgres' AND query = 'LISTEN "cadre_changes"'`,
      );
      listeners = result.rows[0]!.n;
      if (!listeners) await sleep(100);
    }
    await client.end();
    expect(listeners).toBe(1);
    expect(cadre.output()).not.toContain(owner.key);
    report('outage', {
      outageSeconds: Math.round((upAt - downAt) / 100) / 10,
      recoverySecondsAfterStart: Math.round((recoveredAt - upAt) / 100) / 10,
      answers: Object.fromEntries(record.statuses),
      writesAcknowledged: record.acknowledged.size,
      writesPresent: record.acknowledged.size - lost.length,
    });
    expect(await cadre.stop()).toBe(0);
  });
});
