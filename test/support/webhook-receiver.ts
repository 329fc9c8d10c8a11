import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The event the body carries. */
  event: { id: string; type: string; organizationId: string; data: Record<string, unknown> };
  at: number;
}

/** How the receiver answers one request; the default answers 200 `ok`. */
export type Responder = (request: IncomingMessage, response: ServerResponse, received: Received) => void;

/**
 * A real HTTP receiver on loopback, as a customer would run one: it records every request (path, headers,
 * raw body) and answers as the test says, per path.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const responders = new Map<string, Responder[]>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event: Received['event'];
      try {
        event = JSON.parse(body);
      } catch {
        event = { id: '', type: '', organizationId: '', data: {} };
      }
      const entry: Received = {
        path: request.url ?? '',
        headers: Object.fromEntries(
          Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
        ),
        body,
        event,
        at: Date.now(),
      };
      received.push(entry);
      const queue = responders.get(entry.path);
      const respond = queue && queue.length > 1 ? queue.shift()! : queue?.[0];
      if (respond) respond(request, response, entry);
      else response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    at: (path: string) => received.filter((entry) => entry.path === path),
    /** Answers requests to `path` with each responder in turn; the last one keeps answering. */
    respond(path: string, ...queue: Responder[]) {
      responders.set(path, queue);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Checks a request's Standard Webhooks signature with the library's own verifier; throws when invalid. */
export function verify(secret: string, entry: Received) {
  return new Webhook(secret).verify(entry.body, {
    'webhook-id': entry.headers['webhook-id']!,
    'webhook-timestamp': entry.headers['webhook-timestamp']!,
    'webhook-signature': entry.headers['webhook-signature']!,
  });
}

export const status =
  (code: number, body = '', headers: Record<string, string> = {}): Responder =>
  (_request, response) => {
    response.writeHead(code, headers).end(body);
  };
