import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyEntry, parseKeyRing } from '../../src/lib/key-ring.js';
import { expectApiError } from '../support/assertions.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';

/** A TCP listener on one loopback address that counts the connections reaching it (a TLS ClientHello or not). */
async function listenOn(host: string) {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let server: TestServer;
let org: TestOrganization;
let v4: Awaited<ReturnType<typeof listenOn>>;
let v6: Awaited<ReturnType<typeof listenOn>>;

beforeAll(async () => {
  v4 = await listenOn('127.0.0.1');
  v6 = await listenOn('::1');
  server = await startServer({
    keyRing: parseKeyRing(generateKeyEntry('k1')),
    // Production's setting: no CADRE_OAUTH_ALLOW_HTTP_LOOPBACK. What DNS would answer for internal names.
    oauthHttp: {
      timeoutMs: 5_000,
      resolve: async (host) =>
        ({
          'loopback.test': [{ address: '127.0.0.1', family: 4 }],
          'loopback6.test': [{ address: '::1', family: 6 }],
          'metadata.test': [{ address: '169.254.169.254', family: 4 }],
          'private.test': [{ address: '10.1.2.3', family: 4 }],
          'translated.test': [{ address: '::ffff:0:127.0.0.1', family: 6 }],
        })[host] ?? Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' })),
    },
  });
  org = await createOrganization(server, 'team');
});
afterAll(async () => {
  await server?.close();
  await v4?.close();
  await v6?.close();
});

const register = (body: Record<string, unknown>) =>
  server.admin<{ details?: Array<{ field: string; message: string }> }>(
    'POST',
    `/admin/v1/organizations/${org.slug}/integrations`,
    { clientId: 'client-1', clientSecret: 'secret-value', verified: true, ...body },
  );

describe('no server-side request to private addresses through OAuth', () => {
  it('OpenID discovery never connects to a loopback, private or metadata address, and answers alike whatever the target', async () => {
    const literals = [
      `https://127.0.0.1:${v4.port}`,
      `https://[::1]:${v6.port}`,
      `https://[::ffff:127.0.0.1]:${v4.port}`,
      `https://[::ffff:0:127.0.0.1]:${v4.port}`,
      'https://169.254.169.254',
    ];
    for (const issuer of literals) {
      const res = await register({ presetKey: 'oidc', issuer });
      expectApiError(res, 422, 'validation_failed');
      expect(res.text, issuer).toContain('issuer');
      // The refusal names what would lift it during local development.
      expect(res.text, issuer).toContain('CADRE_DEV=1');
    }
    // Names are checked on what they resolve to, at the request: the same answer for every private target,
    // for a name that does not resolve at all, and at once (no timing to tell them apart).
    const answers: string[] = [];
    for (const host of [
      'loopback.test',
      'loopback6.test',
      'metadata.test',
      'private.test',
      'translated.test',
      'nowhere.test',
    ]) {
      const port = host === 'loopback6.test' ? v6.port : v4.port;
      const started = Date.now();
      const res = await register({ presetKey: 'oidc', issuer: `https://${host}:${port}` });
      expectApiError(res, 422, 'validation_failed');
      expect(Date.now() - started, host).toBeLessThan(2_000);
      const { details } = (res.body as unknown as { error: { details: unknown } }).error;
      answers.push(JSON.stringify(details).replaceAll(host, 'HOST'));
    }
    expect(new Set(answers).size, answers.join('\n')).toBe(1);
    expect(answers[0]).toContain('CADRE_DEV=1');
    expect(answers[0]).not.toMatch(/127\.0\.0\.1|::1|169\.254|10\.1\.2\.3|ECONNREFUSED|certificate|TLS/i);
    expect(v4.connections()).toBe(0);
    expect(v6.connections()).toBe(0);
  });

  it("an integration's token, authorization and userinfo endpoints may not name a private address", async () => {
    for (const field of ['authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint']) {
      for (const url of [
        `https://127.0.0.1:${v4.port}/x`,
        `https://[::1]:${v6.port}/x`,
        'https://10.0.0.1/x',
      ]) {
        const res = await register({ presetKey: 'github', [field]: url });
        expectApiError(res, 422, 'validation_failed');
        expect(res.text, `${field} ${url}`).toContain(field);
        expect(res.text, `${field} ${url}`).toContain('CADRE_OAUTH_ALLOW_HTTP_LOOPBACK=true');
      }
    }
    expect(v4.connections()).toBe(0);
    expect(v6.connections()).toBe(0);
  });
});
