import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRawReceiver } from '../../../test/support/raw-receiver.js';
import { LOOPBACK_ALLOWANCE, NO_ALLOWANCE } from './address-policy.js';
import { createOutboundFetch } from './outbound-fetch.js';
import { OutboundError } from './outbound-request.js';

let receiver: Awaited<ReturnType<typeof startRawReceiver>>;
beforeAll(async () => {
  receiver = await startRawReceiver({
    '/json': (socket) =>
      socket.end(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 11\r\n\r\n{"ok":true}',
      ),
    '/switching': (socket) => socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n'),
    '/silent': () => undefined,
    '/big': (socket) => socket.end(`HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n${'x'.repeat(5000)}`),
  });
});
afterAll(() => receiver.close());

const local = createOutboundFetch({ allowance: LOOPBACK_ALLOWANCE, timeoutMs: 500, maxBodyBytes: 1024 });

describe('the outbound fetch', () => {
  it('answers a Response as fetch would, with the headers, the body and the request as sent', async () => {
    const response = await local(receiver.url('/json'), {
      method: 'POST',
      body: new URLSearchParams({ a: 'b' }),
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ ok: true });
    const [head] = receiver.at('/json');
    expect(head).toMatch(/^POST \/json HTTP\/1\.1/);
    expect(head).toMatch(/\r\nuser-agent: Cadre\r\n/i);
    expect(head).toMatch(/\r\ncontent-type: application\/x-www-form-urlencoded/i);
  });

  it('fails as fetch fails: a switching peer, a silent one, an answer too long, the caller aborting', async () => {
    const failure = (url: string, init?: RequestInit) =>
      local(url, init).then(
        () => undefined,
        (error) => error,
      );
    const switched = await failure(receiver.url('/switching'));
    expect(switched).toBeInstanceOf(TypeError);
    expect((switched as TypeError).cause).toBeInstanceOf(OutboundError);
    expect(((switched as TypeError).cause as OutboundError).kind).toBe('protocol');
    const started = Date.now();
    const silent = await failure(receiver.url('/silent'));
    expect(silent).toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await failure(receiver.url('/big'))).toMatchObject({
      message: expect.stringMatching(/longer than 1024/),
    });
    const aborted = await failure(receiver.url('/silent'), { signal: AbortSignal.abort(new Error('mine')) });
    expect(aborted).toMatchObject({ message: 'mine' });
  });

  it('refuses a private target before any connection, with one message whatever it is', async () => {
    const strict = createOutboundFetch({ allowance: NO_ALLOWANCE, timeoutMs: 500 });
    const before = receiver.at('/json').length;
    const error = await strict(receiver.url('/json')).then(
      () => undefined,
      (failure) => failure,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error.message)).toMatch(/^fetch failed: plain http to 127\.0\.0\.1 is not allowed/);
    const https = await strict(receiver.url('/json').replace('http:', 'https:')).then(
      () => undefined,
      (failure) => failure,
    );
    expect(String(https.message)).toBe(
      'fetch failed: 127.0.0.1 has no address Cadre may connect to (it does not resolve, or resolves to a private, loopback, link-local or reserved address)',
    );
    expect(receiver.at('/json')).toHaveLength(before);
  });
});
