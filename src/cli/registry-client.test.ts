import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from './errors.js';
import { createRegistryClient, RegistryError } from './registry-client.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** A server that answers every request with one canned response. */
async function answer(status: number, body: string, contentType = 'application/json'): Promise<string> {
  server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('registry client errors', () => {
  it('reads the registry error shape', async () => {
    const client = createRegistryClient({
      baseUrl: await answer(404, '{"code":404,"error":"Not Found","reason":"Expert x not found"}'),
    });
    const error = await errorOf(client.get('x'));
    expect(error).toBeInstanceOf(RegistryError);
    expect(error).toMatchObject({
      status: 404,
      title: 'Not Found',
      reason: 'Expert x not found',
      exitCode: 1,
    });
  });

  it('reads the management error shape a rate limiter may answer with', async () => {
    const body = '{"error":{"code":"rate_limited","message":"slow down","requestId":"r1"}}';
    const client = createRegistryClient({ baseUrl: await answer(429, body) });
    expect(await errorOf(client.list())).toMatchObject({
      status: 429,
      title: 'rate_limited',
      reason: 'slow down',
      exitCode: 2,
    });
  });

  it('keeps a non-JSON error body as the reason', async () => {
    const client = createRegistryClient({
      baseUrl: await answer(502, 'Bad gateway from proxy', 'text/plain'),
    });
    expect(await errorOf(client.list())).toMatchObject({
      status: 502,
      reason: 'Bad gateway from proxy',
      exitCode: 2,
    });
  });

  it("takes a success without Cadre's envelope for another API at that URL (exit 1: the URL is wrong)", async () => {
    const url = await answer(200, '{"experts":[]}');
    const client = createRegistryClient({ baseUrl: url });
    const error = await errorOf(client.list());
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({
      exitCode: 1,
      message: `${url.replace(/\/$/, '')} is not Cadre's API: it answered GET /registry/experts with JSON that is not Cadre's; pass Cadre's base URL with --url or CADRE_URL, e.g. http://127.0.0.1:3000`,
    });
  });

  it('takes a 2xx with an empty chunked body as done (a delete answers so)', async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'transfer-encoding': 'chunked' });
      res.end();
    });
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    const client = createRegistryClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    });
    await expect(client.remove('writer@1.0.0')).resolves.toBeUndefined();
  });
});
