import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { type Haproxy, startHaproxy } from './support/haproxy.js';
import { ADMIN, ownerKeyOf } from './support/load.js';
import { type CadreProcess, startCadre } from './support/process.js';
import { freePort, type RedisServer, startRedis } from './support/servers.js';

// Three Cadre processes sharing one PostgreSQL database and one Redis, behind HAProxy running the repository's
// own deploy/haproxy.cfg (PostgreSQL only, like every multi-process test). Figures: docs/operations.md.

const ANONYMOUS_READS = 12;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request from a chosen loopback source address (127.0.0.2, 127.0.0.3: distinct "clients"). */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown; from?: string } = {},
): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: options.method ?? 'GET',
        localAddress: options.from ?? '127.0.0.1',
        headers: {
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
        timeout: 20_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Counts how many requests each instance answered, from its own /metrics (scraped directly, loopback). */
async function answeredBy(instance: CadreProcess): Promise<number> {
  const text = (await send(`${instance.url}/metrics`)).body;
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('cadre_http_request_duration_seconds_count{') && !line.includes('route="/readyz"'))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** Parallel loops of `step` until stopped (bounded by maxMs); every answer's status is tallied. */
function loop(workers: number, step: (n: number) => Promise<Answer>, maxMs = 30_000) {
  const statuses = new Map<number, number>();
  let failures = 0;
  let stopped = false;
  const deadline = Date.now() + maxMs;
  let n = 0;
  const worker = async () => {
    while (!stopped && Date.now() < deadline) {
      try {
        const answer = await step(n++);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      } catch {
        failures++;
      }
    }
  };
  const running = Promise.all(Array.from({ length: workers }, worker));
  return {
    statuses,
    stop: async () => {
      stopped = true;
      await running;
      return { statuses, failures, total: [...statuses.values()].reduce((a, b) => a + b, 0) + failures };
    },
  };
}

describe('three instances behind HAProxy, one PostgreSQL, one Redis', () => {
  let database: TestDatabase;
  let redis: RedisServer;
  let proxy: Haproxy;
  const ports: number[] = [];
  const instances: CadreProcess[] = [];
  let owner: { id: string; key: string };
  let slug: string;

  const startInstance = (index: number) =>
    startCadre({
      PORT: String(ports[index]),
      DATABASE_URL: database.url!,
      REDIS_URL: redis.url,
      CADRE_ADMIN_TOKEN: ADMIN,
      CADRE_TRUST_PROXY: '127.0.0.1',
      CADRE_RATE_LIMIT_ANONYMOUS_READ: String(ANONYMOUS_READS),
      // The load below is one credential: its own limits are not under test here.
      CADRE_RATE_LIMIT_READ: '1000000',
      CADRE_RATE_LIMIT_WRITE: '1000000',
      // Leave the rotation (one failed /readyz check, 250 ms) before closing: no request is refused.
      CADRE_SHUTDOWN_DRAIN_DELAY_MS: process.env.LB_DRAIN ?? '1000',
      CADRE_LOG_REQUESTS: 'false',
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = await startRedis();
    for (let i = 0; i < 3; i++) ports.push(await freePort());
    for (let i = 0; i < 3; i++) instances.push(await startInstance(i));
    proxy = await startHaproxy(ports.map((port) => `127.0.0.1:${port}`) as [string, string, string]);
    await proxy.waitFor('UP', ['cadre1', 'cadre2', 'cadre3']);
    slug = `lb-${Date.now().toString(36)}`;
    owner = await ownerKeyOf(proxy.url, slug);
  }, 120_000);

  afterAll(async () => {
    await proxy?.stop();
    await Promise.all(instances.map((instance) => instance.stop('SIGKILL')));
    await redis?.stop();
    await database?.drop();
  });

  it('rate limits are shared exactly across instances and keyed on the client address the proxy saw', async () => {
    const list = () => `${proxy.url}/registry/experts?take=1&organizationId=${owner.id}`;
    const before = await Promise.all(instances.map(answeredBy));
    for (let i = 0; i < ANONYMOUS_READS; i++) {
      const answer = await send(list(), { from: '127.0.0.2' });
      expect(answer.status, answer.body).toBe(200);
      expect(answer.headers['ratelimit-remaining']).toBe(String(ANONYMOUS_READS - i - 1));
    }
    const after = await Promise.all(instances.map(answeredBy));
    // Round robin spread the reads over all three instances, and the count was still one count.
    for (let i = 0; i < 3; i++) expect(after[i]! - before[i]!).toBeGreaterThan(0);
    const refused = await send(list(), { from: '127.0.0.2' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // A forged X-Forwarded-For does not buy a fresh budget: the proxy states the address it saw.
    const forged = await send(list(), { from: '127.0.0.2', headers: { 'x-forwarded-for': '198.51.100.7' } });
    expect(forged.status).toBe(429);
    // Another client address has its own budget.
    expect((await send(list(), { from: '127.0.0.3' })).status).toBe(200);
  });

  it('a publish through the proxy is read fresh through every instance', async () => {
    const name = `@${slug}/fresh`;
    const publish = (version: string) =>
      send(`${proxy.url}/registry/experts`, {
        method: 'POST',
        headers: bearer(owner.key),
        body: {
          name,
          version,
          minRuntimeVersion: '0.1.0',
          description: 'Read through every instance',
          instruction: 'You are read everywhere.',
          skills: { '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' } },
        },
      });
    expect((await publish('1.0.0')).status).toBe(200);
    const latestOn = async (instance: CadreProcess) => {
      const answer = await send(`${instance.url}/registry/experts/${encodeURIComponent(name)}`);
      return answer.status === 200 ? (JSON.parse(answer.body).data.expert.version as string) : answer.status;
    };
    // Every instance has `latest` cached now.
    for (const instance of instances) expect(await latestOn(instance)).toBe('1.0.0');
    expect((await publish('2.0.0')).status).toBe(200);
    // The publish was acknowledged after its change was applied on every instance (docs/registry.md).
    for (const instance of instances) expect(await latestOn(instance)).toBe('2.0.0');
  });

  it('an API key revoked through one instance is refused by every instance on the next request', async () => {
    const created = await send(`${proxy.url}/api/v1/api-keys`, {
      method: 'POST',
      headers: bearer(owner.key),
      body: { name: 'short-lived', grants: { type: 'organization', permissions: ['api-keys:read'] } },
    });
    expect(created.status, created.body).toBe(200);
    const { id, key } = JSON.parse(created.body).data as { id: string; key: string };
    for (const instance of instances) {
      expect((await send(`${instance.url}/api/v1/api-keys?limit=1`, { headers: bearer(key) })).status).toBe(
        200,
      );
    }
    const revoked = await send(`${instances[0]!.url}/api/v1/api-keys/${id}`, {
      method: 'DELETE',
      headers: bearer(owner.key),
    });
    expect(revoked.status).toBe(200);
    for (const instance of instances) {
      expect((await send(`${instance.url}/api/v1/api-keys?limit=1`, { headers: bearer(key) })).status).toBe(
        401,
      );
    }
  });

  it('an instance killed under load costs no read (the proxy retries them elsewhere) and rejoins on restart', async () => {
    // Authenticated reads (anonymous ones would meet the small per-address limit of the first test).
    const read = () => send(`${proxy.url}/api/v1/api-keys?limit=5`, { headers: bearer(owner.key) });
    const load = loop(8, read);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await instances[1]!.stop('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const outcome = await load.stop();
    if (process.env.LB_FIGURES) console.log('kill', outcome);
    expect(outcome.failures).toBe(0);
    expect([...outcome.statuses.keys()]).toEqual([200]);
    expect(outcome.total).toBeGreaterThan(50);
    await proxy.waitFor('DOWN', ['cadre2']);

    instances[1] = await startInstance(1);
    await proxy.waitFor('UP', ['cadre1', 'cadre2', 'cadre3']);
    const before = await answeredBy(instances[1]!);
    for (let i = 0; i < 9; i++) expect((await read()).status).toBe(200);
    expect(await answeredBy(instances[1]!)).toBeGreaterThan(before);
  });

  it('a rolling restart (SIGTERM one at a time) under reads and writes answers no 5xx', async () => {
    const name = `@${slug}/rolling`;
    const created = await send(`${proxy.url}/registry/experts`, {
      method: 'POST',
      headers: bearer(owner.key),
      body: {
        name,
        version: '1.0.0',
        minRuntimeVersion: '0.1.0',
        description: 'Tagged while instances restart',
        instruction: 'You stay available.',
        skills: { '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' } },
      },
    });
    expect(created.status, created.body).toBe(200);
    const path = `${proxy.url}/registry/experts/${encodeURIComponent(`${name}@1.0.0`)}`;
    const load = loop(6, (n) =>
      n % 3 === 0
        ? send(path, { method: 'POST', headers: bearer(owner.key), body: { tags: [`t${n % 5}`] } })
        : send(`${proxy.url}/api/v1/api-keys?limit=5`, { headers: bearer(owner.key) }),
    );
    for (let i = 0; i < 3; i++) {
      const code = await instances[i]!.stop('SIGTERM');
      expect(code).toBe(0);
      instances[i] = await startInstance(i);
      await proxy.waitFor('UP', ['cadre1', 'cadre2', 'cadre3']);
    }
    const outcome = await load.stop();
    if (process.env.LB_FIGURES) console.log('rolling restart', outcome);
    const serverErrors = [...outcome.statuses].filter(([status]) => status >= 500);
    expect(serverErrors).toEqual([]);
    expect(outcome.failures).toBe(0);
    expect(outcome.statuses.get(200)).toBeGreaterThan(50);
  });
});
