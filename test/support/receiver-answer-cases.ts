import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/lib/clock.js';
import { generateKeyEntry, parseKeyRing } from '../../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../../src/lib/outbound/address-policy.js';
import { webhookDeliveries } from '../../src/modules/webhooks/webhooks.tables.js';
import { createKey, createOrganization, type TestOrganization } from './fixtures.js';
import { type RawBehaviour, startRawReceiver } from './raw-receiver.js';
import { startServer, type TestServer } from './server.js';

interface Delivery {
  id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Array<{ statusCode: number | null; error: string | null; responseExcerpt: string | null }>;
}

/** An answer whose body has NUL bytes and bytes that are not UTF-8 (a lone continuation byte, 0xFF). */
const answering =
  (status: string): RawBehaviour =>
  (socket) => {
    const body = Buffer.concat([
      Buffer.from('ok\u0000then'),
      Buffer.from([0x80, 0xff, 0xfe]),
      Buffer.from(' \u0000end\tline\n'),
    ]);
    socket.end(
      Buffer.concat([
        Buffer.from(`HTTP/1.1 ${status}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`),
        body,
      ]),
    );
  };

/**
 * A receiver's answer never breaks the record of an attempt (docs/webhooks.md, "Delivery log"): run on each
 * database (webhook-receiver-answers.test.ts on PGlite, .pg.test.ts on PostgreSQL).
 */
export function describeReceiverAnswers() {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startRawReceiver>>;
  let org: TestOrganization;
  const clock = createManualClock(new Date());

  beforeAll(async () => {
    receiver = await startRawReceiver({ '/nul-200': answering('200 OK'), '/nul-500': answering('500 Oops') });
    server = await startServer({
      clock,
      keyRing: parseKeyRing(generateKeyEntry('k1')),
      webhooks: {
        allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance,
        worker: { pollIntervalMs: 50 },
      },
    });
    org = await createOrganization(server);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  const createEndpoint = async (path: string) => {
    const res = await server.request<{ data: { endpoint: { id: string } } }>(
      'POST',
      '/api/v1/webhook-endpoints',
      { key: org.ownerKey, body: { url: receiver.url(path), eventTypes: ['api_key.created'] } },
    );
    expect(res.status, res.text).toBe(201);
    return res.body.data.endpoint.id;
  };
  const delivery = async (endpointId: string) =>
    (
      await server.request<{ data: Delivery[] }>(
        'GET',
        `/api/v1/webhook-endpoints/${endpointId}/deliveries`,
        {
          key: org.ownerKey,
        },
      )
    ).body.data[0];

  describe("a receiver's answer never breaks the record", () => {
    it('an answer with NUL bytes and invalid UTF-8 is logged as a sanitized excerpt; the attempt is recorded either way', async () => {
      const succeeded = await createEndpoint('/nul-200');
      const failed = await createEndpoint('/nul-500');
      await createKey(server, org, org.ownerId);
      await expect.poll(async () => (await delivery(succeeded))?.status).toBe('succeeded');
      await expect.poll(async () => (await delivery(failed))?.attempts.length).toBe(1);
      const expected = 'okthen\ufffd\ufffd\ufffd end\tline\n';
      expect((await delivery(succeeded))!.attempts).toEqual([
        expect.objectContaining({ statusCode: 200, responseExcerpt: expected }),
      ]);
      // The failed one is pending its retry (not stuck in its claim, not re-sent at once).
      expect(await delivery(failed)).toMatchObject({
        status: 'pending',
        attempts: [expect.objectContaining({ statusCode: 500, responseExcerpt: expected })],
      });
      expect(receiver.at('/nul-500')).toHaveLength(1);
    });

    it('when its log line cannot be written, the attempt still ends: the delivery follows its outcome', async () => {
      const endpoint = await createEndpoint('/fine');
      const { db } = server.context.database;
      // Any failure at all of the attempt's insert (here a trigger refusing it).
      await db.execute(sql`
        CREATE FUNCTION refuse_attempt() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'no attempt may be written' USING ERRCODE = '22021'; END $$`);
      await db.execute(sql`
        CREATE TRIGGER refuse_attempt BEFORE INSERT ON webhook_delivery_attempts
          FOR EACH ROW EXECUTE FUNCTION refuse_attempt()`);
      try {
        await createKey(server, org, org.ownerId);
        await expect.poll(() => receiver.at('/fine').length).toBe(1);
        await expect
          .poll(async () => {
            const [row] = await db
              .select({ status: webhookDeliveries.status, attempts: webhookDeliveries.attempts })
              .from(webhookDeliveries)
              .where(eq(webhookDeliveries.endpointId, endpoint));
            return row;
          })
          .toEqual({ status: 'succeeded', attempts: 1 });
        await server.context.webhookWorker!.idle();
        expect(receiver.at('/fine')).toHaveLength(1);
      } finally {
        await db.execute(sql`DROP TRIGGER refuse_attempt ON webhook_delivery_attempts`);
        await db.execute(sql`DROP FUNCTION refuse_attempt()`);
      }
    });
  });
}
