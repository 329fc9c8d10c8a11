import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';

// GET /api/v1/api-keys/{id} reads the keys asked for in one event-loop turn with one statement
// (src/modules/api-keys/api-keys.reads.ts). Many callers at once must each get their own key, and an
// unknown or another organization's id its own 404, whatever else shared the statement.

let server: TestServer;
let org: TestOrganization;
let other: TestOrganization;
const keyIds: string[] = [];
let foreignKeyId: string;

beforeAll(async () => {
  // No last-used flush during the burst: the statements counted are the reads'.
  server = await startServer({ lastUsedFlushMs: 3_600_000 });
  org = await createOrganization(server, 'team');
  other = await createOrganization(server, 'team');
  for (let index = 0; index < 30; index++) {
    const created = await createKey(server, org, org.ownerId, undefined, { name: `key ${index}` });
    keyIds.push(created.id);
  }
  foreignKeyId = (await createKey(server, other, other.ownerId, undefined, { name: 'foreign' })).id;
});
afterAll(() => server.close());

/** Statements the database ran so far (cadre_db_query_duration_seconds, every outcome). */
async function statements(): Promise<number> {
  const text = (await server.request('GET', '/metrics')).text;
  return text
    .split('\n')
    .filter((line) => line.startsWith('cadre_db_query_duration_seconds_count'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * Sends one GET per path, each on a connection of its own opened beforehand, all written in one synchronous
 * loop: the server finds them readable together, as under load, and parses them in one event-loop turn.
 */
async function sendInOneTurn(paths: string[]): Promise<Array<{ status: number; text: string }>> {
  const { port } = new URL(server.url);
  const sockets: Socket[] = [];
  for (const _ of paths) {
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    sockets.push(socket);
  }
  const answers = sockets.map(async (socket) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await once(socket, 'end');
    const raw = Buffer.concat(chunks).toString('utf8');
    const status = Number(raw.slice(9, 12));
    return { status, text: raw.slice(raw.indexOf('\r\n\r\n') + 4) };
  });
  for (const [index, socket] of sockets.entries()) {
    socket.write(
      `GET ${paths[index]} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${org.ownerKey}\r\nconnection: close\r\n\r\n`,
    );
  }
  return Promise.all(answers);
}

it('answers each of many concurrent GETs with its own key, and unknown or foreign ids with 404', async () => {
  const asked = [
    ...keyIds,
    'unknown-key-1',
    foreignKeyId,
    ...keyIds.slice(0, 10).reverse(),
    'unknown-key-2',
    ...keyIds.slice(10, 20),
  ];
  const before = await statements();
  const answers = await sendInOneTurn(asked.map((id) => `/api/v1/api-keys/${id}`));
  const after = await statements();
  for (const [index, id] of asked.entries()) {
    const answer = answers[index]!;
    if (keyIds.includes(id)) {
      expect(answer.status, id).toBe(200);
      const { data } = JSON.parse(answer.text) as {
        data: { id: string; name: string; organizationId: string };
      };
      expect(data.id).toBe(id);
      expect(data.name).toBe(`key ${keyIds.indexOf(id)}`);
      expect(data.organizationId).toBe(org.id);
    } else {
      expect(answer.status, id).toBe(404);
      expect(answer.text).toContain('not_found');
      expect(answer.text).not.toContain('foreign');
    }
  }
  // The 53 requests shared a few statements (background polls, if any came, count too).
  expect(after - before).toBeLessThan(asked.length / 2);
});
