import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The form-encoded body, decoded into Stripe's bracket notation keys (`line_items[0][price]`). */
  form: Record<string, string>;
}

export interface StripeStandIn {
  port: number;
  requests: RecordedRequest[];
  /** Makes the next N requests fail with this status (Stripe error body). */
  failNext(count: number, status: number): void;
  /** Holds the next request's answer until the returned function is called (a slow provider). */
  holdNext(): () => void;
  /** Resolves when the held request has arrived. */
  held: Promise<void> | undefined;
  close(): Promise<void>;
}

/**
 * A local stand-in for the parts of Stripe's REST API Cadre calls, reached by the official SDK through its
 * host/port/protocol options. Like Stripe, a repeated Idempotency-Key answers the first response.
 */
export async function startStripeStandIn(): Promise<StripeStandIn> {
  const requests: RecordedRequest[] = [];
  const byKey = new Map<string, { status: number; body: string }>();
  let failures = { count: 0, status: 500 };
  let counter = 0;
  let hold: { gate: Promise<void>; arrived: () => void } | undefined;

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', async () => {
      if (hold) {
        const { gate, arrived } = hold;
        hold = undefined;
        arrived();
        await gate;
      }
      const form = Object.fromEntries(new URLSearchParams(raw));
      const path = (req.url ?? '').split('?')[0] ?? '';
      requests.push({ method: req.method ?? '', path, headers: req.headers, form });
      const send = (status: number, body: string) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${counter}` });
        res.end(body);
      };
      if (failures.count > 0) {
        failures = { ...failures, count: failures.count - 1 };
        return send(
          failures.status,
          JSON.stringify({ error: { type: 'api_error', message: 'stand-in failure' } }),
        );
      }
      const key = req.headers['idempotency-key'];
      const cached = typeof key === 'string' ? byKey.get(`${path}|${key}`) : undefined;
      if (cached) return send(cached.status, cached.body);
      counter++;
      const now = Math.floor(Date.now() / 1000);
      let answer: { status: number; body: string };
      if (req.method === 'POST' && path === '/v1/checkout/sessions') {
        const id = `cs_test_${counter}`;
        answer = {
          status: 200,
          body: JSON.stringify({
            id,
            object: 'checkout.session',
            mode: 'subscription',
            url: `https://checkout.stripe.test/c/pay/${id}`,
            expires_at: now + 86_400,
            client_reference_id: form.client_reference_id ?? null,
          }),
        };
      } else if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
        const id = `bps_test_${counter}`;
        answer = {
          status: 200,
          body: JSON.stringify({
            id,
            object: 'billing_portal.session',
            customer: form.customer,
            return_url: form.return_url,
            url: `https://billing.stripe.test/p/session/${id}`,
          }),
        };
      } else {
        answer = {
          status: 404,
          body: JSON.stringify({
            error: { type: 'invalid_request_error', message: `no stand-in for ${path}` },
          }),
        };
      }
      if (typeof key === 'string') byKey.set(`${path}|${key}`, answer);
      send(answer.status, answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const standIn: StripeStandIn = {
    port: (server.address() as AddressInfo).port,
    requests,
    failNext(count, status) {
      failures = { count, status };
    },
    held: undefined,
    holdNext() {
      let release!: () => void;
      let arrived!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      standIn.held = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      hold = { gate, arrived };
      return release;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return standIn;
}
