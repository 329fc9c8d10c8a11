import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorageFull } from '../src/db/errors.js';
import { expectApiError } from './support/assertions.js';
import { createOrganization } from './support/fixtures.js';
import { captureLogs } from './support/log-capture.js';
import { startServer, type TestServer } from './support/server.js';

// The database answers a write the way a full disk makes PostgreSQL answer it: SQLSTATE 53100 with its
// "could not extend file" message, raised by a trigger so the real driver, ORM and error handler see it.
const FULL = [
  sql.raw(`CREATE OR REPLACE FUNCTION cadre_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'could not extend file "base/16384/24576": No space left on device' USING ERRCODE = '53100';
  END $$`),
  sql.raw(
    'CREATE TRIGGER cadre_test_disk_full BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION cadre_test_disk_full()',
  ),
];

describe('a full disk', () => {
  let server: TestServer;
  const { lines, logger } = captureLogs();
  beforeAll(async () => {
    server = await startServer({ logger });
  });
  afterAll(() => server.close());

  it('answers 503 with Retry-After (not 500), logs and counts the cause, stores nothing, and recovers when space is back', async () => {
    const org = await createOrganization(server);
    const create = () =>
      server.request('POST', '/api/v1/api-keys', {
        key: org.ownerKey,
        body: { name: 'ci', grants: { type: 'organization', permissions: ['billing:read'] } },
      });
    const before = await server.request<{ data: unknown[] }>('GET', '/api/v1/api-keys', {
      key: org.ownerKey,
    });
    for (const statement of FULL) await server.db.database.db.execute(statement);
    try {
      const refused = await create();
      expectApiError(refused, 503, 'service_unavailable');
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(refused.body).toMatchObject({
        error: { message: 'The service cannot store data right now (storage full); retry later' },
      });
      const logged = lines.find((line) => line.includes('database storage full'));
      expect(logged, lines.join('\n')).toBeDefined();
      expect(JSON.parse(logged!)).toMatchObject({
        level: 50,
        cause: 'disk_full',
        err: { sqlState: '53100' },
      });
      const metrics = (await server.request('GET', '/metrics')).text;
      expect(metrics).toMatch(
        /cadre_http_refusals_total\{status="503",code="service_unavailable",cause="disk_full"\} 1/,
      );
    } finally {
      await server.db.database.db.execute(sql.raw('DROP TRIGGER cadre_test_disk_full ON api_keys'));
    }
    // Nothing half-written: the list is what it was; once space is back the same request succeeds.
    const after = await server.request<{ data: unknown[] }>('GET', '/api/v1/api-keys', { key: org.ownerKey });
    expect(after.body.data).toEqual(before.body.data);
    expect((await create()).status).toBe(200);
  });

  it.each([
    ['PostgreSQL: SQLSTATE 53100', Object.assign(new Error('could not write'), { code: '53100' })],
    [
      'the embedded database: ENOSPC from its file system',
      Object.assign(new Error('write'), { code: 'ENOSPC' }),
    ],
    [
      'a wrapped driver message',
      new Error('Failed query', { cause: new Error('could not extend file "x"') }),
    ],
  ])('recognises %s', (_case, error) => {
    expect(isStorageFull(error)).toBe(true);
  });

  it('does not take other errors for a full disk', () => {
    expect(isStorageFull(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isStorageFull(new Error('connect ECONNREFUSED'))).toBe(false);
  });
});
