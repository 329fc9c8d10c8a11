import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError } from './support/assertions.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { createOrganization } from './support/fixtures.js';
import { captureLogs } from './support/log-capture.js';
import { startServer, type TestServer } from './support/server.js';

// A database error's message carries what its statement carried: drizzle writes every parameter into its
// wrapper's message ("Failed query: … params: …") and the driver quotes the value it refused. Logs get the
// SQLSTATE, the constraint and table, and the statement's text; never a value (docs/operations.md "Logs").

/** Every log line must be free of every marker the test sent as a statement's value. */
const leaks = (lines: string[], markers: string[]) =>
  lines.filter((line) => markers.some((marker) => line.includes(marker)));

describe('database errors in the logs', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it.each([
    ['an invalid value (22P02), quoted by the driver', (marker: string) => sql`SELECT ${marker}::uuid`],
    ['a NUL byte (22021)', (marker: string) => sql`SELECT ${`${marker}\u0000`}::text`],
    [
      'a unique violation (23505), whose detail names the key',
      (marker: string) =>
        sql`INSERT INTO registry_names (name, organization_id) VALUES (${marker}, ${marker}), (${marker}, ${marker})`,
    ],
  ])('logs %s by its SQLSTATE, never the parameters', async (_case, statement) => {
    const marker = `secret-${Math.random().toString(36).slice(2)}`;
    const error = await database.database.db.execute(statement(marker)).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeDefined();
    // The unfiltered error does carry the value: this is what the serializer keeps out.
    expect(
      JSON.stringify({ message: (error as Error).message, cause: String((error as Error).cause) }),
    ).toContain(marker);
    const { lines, logger } = captureLogs();
    logger.error({ err: error }, 'request failed');
    logger.warn({ err: error }, 'database refused a request value');
    expect(leaks(lines, [marker])).toEqual([]);
    const logged = JSON.parse(lines[0]!) as { err: Record<string, unknown> };
    expect(logged.err).toMatchObject({
      type: 'DatabaseError',
      sqlState: expect.stringMatching(/^[0-9A-Z]{5}$/),
    });
    expect(String(logged.err.query ?? '')).toMatch(/\$1/);
  });

  it("leaves other errors with a five-letter code as they are (nodemailer's EAUTH is no SQLSTATE)", () => {
    const { lines, logger } = captureLogs();
    logger.warn(
      { err: Object.assign(new Error('Invalid login: 535 Authentication failed'), { code: 'EAUTH' }) },
      'mail',
    );
    expect(JSON.parse(lines[0]!).err).toMatchObject({
      message: 'Invalid login: 535 Authentication failed',
      code: 'EAUTH',
    });
  });

  describe('through the HTTP answers that hit them', () => {
    let server: TestServer;
    const { lines, logger } = captureLogs();
    beforeAll(async () => {
      server = await startServer({ logger });
    });
    afterAll(() => server.close());

    it('a NUL byte in a new API key name: 400, and the log names the SQLSTATE without the key or the name', async () => {
      const org = await createOrganization(server);
      const marker = `name-${Math.random().toString(36).slice(2)}`;
      const res = await server.request('POST', '/api/v1/api-keys', {
        key: org.ownerKey,
        body: { name: `${marker}\u0000`, grants: { type: 'organization', permissions: ['billing:read'] } },
      });
      expectApiError(res, 400, 'bad_request');
      const refused = lines.find((line) => line.includes('database refused a request value'));
      expect(refused, lines.join('\n')).toBeDefined();
      expect(JSON.parse(refused!).err).toMatchObject({ type: 'DatabaseError', sqlState: '22021' });
      // Neither the name nor the owner's key (nor anything of the key being made: its prefix and digest are
      // among the statement's parameters) reaches the log.
      expect(leaks(lines, [marker, org.ownerKey, org.ownerKey.slice(0, 12)])).toEqual([]);
    });
  });
});
