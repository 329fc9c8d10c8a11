import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from './support/log-capture.js';
import { startServer, type TestServer } from './support/server.js';

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function raw(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function parse(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('requests Node refuses before routing answer in the documented error shape', () => {
  let server: TestServer;
  const { lines, logger } = captureLogs();
  beforeAll(async () => {
    server = await startServer({ logger });
  });
  afterAll(() => server.close());

  it('a 20 KB URL: 431 headers_too_large', async () => {
    const answer = parse(
      await raw(server.url, `GET /registry/experts?filter=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    expect(answer.status).toBe(431);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.body).toEqual({
      error: {
        code: 'headers_too_large',
        message: 'The request line or headers are too large',
        requestId: answer.headers['x-request-id'],
      },
    });
    expect(answer.headers['x-request-id']).toMatch(/^req_/);
  });

  it('a duplicate Content-Length: 400 bad_request', async () => {
    const answer = parse(
      await raw(
        server.url,
        'POST /api/v1/api-keys HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}',
      ),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'bad_request',
      requestId: expect.stringMatching(/^req_/),
    });
  });

  it('a request line that is not HTTP: 400 bad_request', async () => {
    const answer = parse(await raw(server.url, 'HELLO THERE\r\n\r\n'));
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('bad_request');
  });

  it('each refusal writes one access-log line like a request line: request id, status, code, no request bytes', async () => {
    const secret = 'lcs_I4uWcow7F8mhq5pb5GjT1FdAx3S7xR56';
    const refusals = [
      `GET /billing/local/checkout/${secret}?pad=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `POST /api/v1/api-keys?access_token=${secret} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}`,
      `HELLO ${secret}\r\n\r\n`,
    ];
    const before = lines.length;
    const answers = [];
    for (const bytes of refusals) answers.push(parse(await raw(server.url, bytes)));
    const logged = lines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toEqual(
      answers.map((answer) => ({
        level: 30,
        time: expect.any(Number),
        pid: process.pid,
        hostname: expect.any(String),
        reqId: answer.headers['x-request-id'],
        status: answer.status,
        code: answer.body.error.code,
        cause: expect.stringMatching(/^HPE_/),
        msg: 'request',
      })),
    );
    expect(logged.map((line) => [line.status, line.cause])).toEqual([
      [431, 'HPE_HEADER_OVERFLOW'],
      [400, 'HPE_UNEXPECTED_CONTENT_LENGTH'],
      [400, 'HPE_INVALID_METHOD'],
    ]);
    expect(lines.join('\n')).not.toContain(secret.slice(4));
  });
});
