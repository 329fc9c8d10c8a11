import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyEntry, parseKeyRing } from '../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../src/lib/outbound/address-policy.js';
import { createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { until, waitingOnLocks } from './support/locks.js';
import { captureLogs } from './support/log-capture.js';
import { startServer, type TestServer } from './support/server.js';
import { type Receiver, startReceiver } from './support/webhook-receiver.js';

// An endpoint deleted while the worker records a failed attempt to it (docs/webhooks.md, "Deliveries"): on
// PostgreSQL, where the two transactions really overlap. A deletion locks the endpoint, then (cascading) its
// deliveries; the worker must take the same order, or each holds what the other waits for and PostgreSQL
// aborts one of them. The test holds the endpoint FOR UPDATE from a connection of its own, as the deletion
// does, lets the worker's attempt fail and reach its recording, then deletes the endpoint in that same transaction.

const keyRing = parseKeyRing(generateKeyEntry('k1'));
const { lines, logger } = captureLogs();
let server: TestServer;
let receiver: Receiver;
let org: TestOrganization;

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startServer({
    keyRing,
    logger,
    webhooks: {
      allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance,
      worker: { pollIntervalMs: 20 },
    },
  });
  org = await createOrganization(server);
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

describe('deleting an endpoint while the worker records a failed attempt to it', () => {
  it('the deletion goes through at once, and the worker lets the delivery go without an error', async () => {
    // The answer (a 500) waits until the test holds the endpoint's lock.
    let answer = () => {};
    receiver.respond('/failing', (_request, response) => {
      answer = () => {
        response.statusCode = 500;
        response.end('down');
      };
    });
    const made = await server.request<{ data: { endpoint: { id: string } } }>(
      'POST',
      '/api/v1/webhook-endpoints',
      { key: org.ownerKey, body: { url: receiver.url('/failing'), eventTypes: ['api_key.created'] } },
    );
    expect(made.status, made.text).toBe(201);
    const endpointId = made.body.data.endpoint.id;

    const holder = new pg.Client({ connectionString: server.db.url });
    await holder.connect();
    const observer = new pg.Client({ connectionString: server.db.url });
    await observer.connect();
    try {
      await createKey(server, org, org.ownerId);
      await until(() => receiver.received.some((entry) => entry.path === '/failing'), 'the attempt');
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [endpointId]);
      answer();
      // The worker got its 500 and now waits on the endpoint's lock to record it.
      await until(async () => (await waitingOnLocks(observer)) >= 1, 'the worker to wait on the endpoint');

      // Were the worker holding the delivery's row, this would wait on it, and PostgreSQL would detect the
      // deadlock after its deadlock_timeout (1 s) and abort one side.
      await holder.query('SET LOCAL lock_timeout = 500');
      await holder.query('DELETE FROM webhook_endpoints WHERE id = $1', [endpointId]);
      await holder.query('COMMIT');

      await server.context.webhookWorker!.idle();
      const { rows } = await observer.query(
        'SELECT d.id FROM webhook_deliveries d WHERE d.endpoint_id = $1 UNION ALL ' +
          'SELECT a.id FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id ' +
          'WHERE d.endpoint_id = $1',
        [endpointId],
      );
      expect(rows).toEqual([]);
      expect(lines.filter((line) => line.includes('a webhook delivery could not be recorded'))).toEqual([]);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
      await observer.end();
    }
  });
});
