import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  beforeAll(async () => {
    server = await startServer();
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
});
