import { connect } from 'node:net';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.js';
import { createHealthMonitor, DEFAULT_OVERLOAD } from '../src/http/overload.js';
import { expectApiError } from './support/assertions.js';
import { createTestDatabase } from './support/database.js';
import { createOrganization } from './support/fixtures.js';
import { startServer } from './support/server.js';

const silentLog = pino({ level: 'silent' });

describe('load shedding: fast 503 with Retry-After, never a 500', () => {
  it('sheds while the heap is past its threshold; /readyz says so, /healthz stays up', async () => {
    const server = await startServer({ overload: { heapRatio: 0.000_001 } });
    try {
      const res = await server.request('GET', '/api/v1/api-keys', { key: 'cadre_anything' });
      expectApiError(res, 503, 'service_unavailable');
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toMatchObject({ error: { message: 'The server is low on memory' } });
      expectApiError(await server.request('GET', '/readyz'), 503, 'service_unavailable');
      expect((await server.request('GET', '/healthz')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('sheds while too many queries wait for a database pool connection', async () => {
    const owned = await createTestDatabase();
    let waiting = 0;
    const server = await startServer({
      database: { ...owned.database, waitingCount: () => waiting },
      overload: { dbWaitingMax: 10 },
    });
    try {
      const org = await createOrganization(server);
      expect((await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey })).status).toBe(200);
      waiting = 11;
      const res = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
      expectApiError(res, 503, 'service_unavailable');
      expect(res.headers.get('retry-after')).toBe('2');
      expectApiError(await server.request('GET', '/readyz'), 503, 'service_unavailable');
      waiting = 0;
      expect((await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey })).status).toBe(200);
    } finally {
      await server.app.close();
      await owned.drop();
    }
  });

  it('sheds after the event loop was blocked past its threshold, then recovers by itself', async () => {
    const server = await startServer({ overload: { eventLoopDelayMs: 200, sampleIntervalMs: 1_000 } });
    try {
      const org = await createOrganization(server);
      const until = Date.now() + 1_300;
      while (Date.now() < until) {
        // Block this process (server and client share it): the next sample sees a lag over 1 s.
      }
      const res = await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey });
      expectApiError(res, 503, 'service_unavailable');
      expect(res.body).toMatchObject({ error: { message: 'The server is overloaded' } });
      let status = 503;
      for (let i = 0; i < 50 && status === 503; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey })).status;
      }
      expect(status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('answers 503 at the request deadline when the database holds the request, and serves again after', async () => {
    const server = await startServer({ overload: { requestDeadlineMs: 300 } });
    try {
      const org = await createOrganization(server);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = server.context.database.db.transaction(async (tx) => {
        await tx.execute(sql`LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE`);
        locked();
        await gate;
      });
      await isLocked;
      const created = server.request('POST', '/api/v1/api-keys', {
        key: org.ownerKey,
        body: { grants: { type: 'organization', permissions: ['billing:read'] } },
      });
      const res = await created;
      expectApiError(res, 503, 'service_unavailable');
      expect(res.headers.get('retry-after')).toBe('5');
      release();
      await holder;
      // The late handler result is dropped silently; the next request is served.
      expect((await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('health monitor', () => {
  it('sheds for the database only once a probe confirms it is unreachable (a connection error may come from elsewhere)', async () => {
    const owned = await createTestDatabase();
    const unreachable = {
      ...owned.database,
      db: { execute: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) },
    } as unknown as Database;
    const options = { ...DEFAULT_OVERLOAD, probeIntervalMs: 100 };
    const up = createHealthMonitor({ database: owned.database, options, log: () => silentLog });
    const down = createHealthMonitor({ database: unreachable, options, log: () => silentLog });
    try {
      up.reportDatabaseUnavailable();
      down.reportDatabaseUnavailable();
      let status = down.status();
      for (let i = 0; i < 50 && status.ok; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        status = down.status();
      }
      expect(status).toEqual({
        ok: false,
        reason: 'The database is unreachable',
        retryAfterS: 5,
        cause: 'database_down',
      });
      // The reachable database's probe has long finished by now: no shedding there.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(up.status()).toEqual({ ok: true });
    } finally {
      up.stop();
      down.stop();
      await owned.drop();
    }
  });
});

describe('security headers and limits', () => {
  it('never sends X-Powered-By; management and admin answers are Cache-Control: no-store', async () => {
    const server = await startServer();
    try {
      const org = await createOrganization(server);
      const answers = [
        await server.request('GET', '/api/v1/api-keys', { key: org.ownerKey }),
        await server.request('GET', '/api/v1/api-keys'),
        await server.admin('GET', `/admin/v1/organizations/${org.id}/audit-events`),
        await server.request('GET', '/api/v1/nothing'),
      ];
      for (const res of answers) {
        expect(res.headers.get('x-powered-by')).toBeNull();
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
      expect((await server.request('GET', '/healthz')).headers.get('x-powered-by')).toBeNull();
    } finally {
      await server.close();
    }
  });

  it('answers 400, not 500, for values the database cannot store (NUL bytes), and 400 for an over-long path parameter', async () => {
    const server = await startServer();
    try {
      const org = await createOrganization(server);
      const params = await server.request('GET', '/api/v1/api-keys/abc%00def', { key: org.ownerKey });
      expectApiError(params, 400, 'bad_request');
      const body = await server.request('POST', '/api/v1/api-keys', {
        key: org.ownerKey,
        body: { name: 'nul\u0000byte', grants: { type: 'organization', permissions: ['billing:read'] } },
      });
      expectApiError(body, 400, 'bad_request');
      const long = await server.request('GET', `/api/v1/api-keys/${'a'.repeat(2_000)}`, {
        key: org.ownerKey,
      });
      expectApiError(long, 400, 'bad_request');
      const badEncoding = await server.request('GET', '/api/v1/api-keys/%E0%A4%A', { key: org.ownerKey });
      expectApiError(badEncoding, 400, 'bad_request');
      expect(badEncoding.headers.get('cache-control')).toBe('no-store');
    } finally {
      await server.close();
    }
  });

  it('refuses bodies over the limit with 413 payload_too_large, before parsing', async () => {
    const server = await startServer({ bodyLimitBytes: 1024 });
    try {
      const org = await createOrganization(server);
      const res = await server.request('POST', '/api/v1/api-keys', {
        key: org.ownerKey,
        rawBody: JSON.stringify({
          name: 'x'.repeat(2_000),
          grants: { type: 'organization', permissions: ['*'] },
        }),
      });
      expectApiError(res, 413, 'payload_too_large');
      const broken = await server.request('POST', '/api/v1/api-keys', {
        key: org.ownerKey,
        rawBody: `{${'"'.repeat(5_000)}`,
      });
      expectApiError(broken, 413, 'payload_too_large');
    } finally {
      await server.close();
    }
  });

  it('closes connections of clients too slow with their headers or body, while serving others', async () => {
    const server = await startServer({ timeouts: { headersMs: 500, requestMs: 1_000 } });
    try {
      const org = await createOrganization(server);
      const { port } = new URL(server.url);
      const slow = (chunks: string[]) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(Number(port), '127.0.0.1');
          let received = '';
          let sent = 0;
          const drip = setInterval(() => {
            if (sent < chunks.length && !socket.destroyed) socket.write(chunks[sent++]!);
          }, 200);
          socket.on('data', (data) => {
            received += data;
          });
          socket.on('close', () => {
            clearInterval(drip);
            resolve(received);
          });
          socket.on('error', () => undefined);
          setTimeout(() => {
            clearInterval(drip);
            socket.destroy();
            reject(new Error('the server kept a slow connection open for 10 s'));
          }, 10_000);
        });
      const headerDrip = Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: ${i}\r\n`);
      const bodyDrip = Array.from({ length: 40 }, () => 'a');
      const results = Promise.all([
        ...Array.from({ length: 5 }, () =>
          slow(['GET /api/v1/api-keys HTTP/1.1\r\nHost: x\r\n', ...headerDrip]),
        ),
        ...Array.from({ length: 5 }, () =>
          slow([
            `POST /api/v1/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.ownerKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
            ...bodyDrip,
          ]),
        ),
      ]);
      // Meanwhile, normal clients are served.
      expect((await server.request('GET', '/healthz')).status).toBe(200);
      const answers = await results;
      for (const answer of answers) {
        // Node answers 408 (or just closes); never a 2xx for an incomplete request.
        expect(answer === '' || answer.startsWith('HTTP/1.1 408') ? 'closed' : answer).toBe('closed');
      }
      expect((await server.request('GET', '/healthz')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
