import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type ClientHttp2Session, connect as http2Connect } from 'node:http2';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrograms, missingProgramMessage } from '../scripts/test-programs.mjs';
import { track } from './support/leftovers.js';
import { type CadreProcess, ROOT, runCadreToExit, startCadre } from './support/process.js';

const run = promisify(execFile);

interface Certificate {
  certFile: string;
  keyFile: string;
  pem: string;
  fingerprint256: string;
  serialNumber: string;
}

/**
 * The self-signed certificate of docs/operations.md ("Local set-up"): the test runs the command the page
 * gives, read from the page, so the documented command is the tested one. The openssl binary rather than an
 * npm package that makes certificates in JavaScript: it is what operators run, and Debian ships it (the
 * pretest step installs it where it is missing, scripts/test-programs.mjs).
 */
async function makeCertificate(dir: string): Promise<Certificate> {
  const openssl = findPrograms().openssl;
  if (!openssl) throw new Error(missingProgramMessage('openssl'));
  const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const command = docs.split('\n').find((line) => line.startsWith('openssl req -x509 '));
  if (!command) throw new Error('docs/operations.md no longer gives the openssl command');
  // The command has no quoting: its words are its arguments.
  await run(openssl, command.split(/\s+/).slice(1), { cwd: dir });
  const pem = readFileSync(join(dir, 'cadre-cert.pem'), 'utf8');
  const { fingerprint256, serialNumber } = new X509Certificate(pem);
  return {
    certFile: join(dir, 'cadre-cert.pem'),
    keyFile: join(dir, 'cadre-key.pem'),
    pem,
    fingerprint256,
    serialNumber,
  };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  httpVersion: string;
  /** The server certificate of the connection that carried the answer. */
  fingerprint256: string;
  reusedSocket: boolean;
}

/** An HTTPS/1.1 request trusting `ca` (or a keep-alive agent's), over loopback. */
function request(
  url: string,
  path: string,
  options: {
    ca?: string[];
    agent?: Agent;
    method?: string;
    body?: unknown;
    headers?: Record<string, string>;
  },
): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      new URL(path, url),
      {
        method: options.method ?? 'GET',
        ...(options.agent ? { agent: options.agent } : { ca: options.ca, agent: false }),
        headers: {
          ...options.headers,
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const fingerprint256 = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            httpVersion: res.httpVersion,
            fingerprint256,
            reusedSocket: req.reusedSocket,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The certificate a new TLS connection is served (trusting `ca`, so the handshake completes). */
async function servedFingerprint(url: string, ca: string[], alpn?: string[]): Promise<string> {
  const { port } = new URL(url);
  const socket = tlsConnect({
    host: '127.0.0.1',
    port: Number(port),
    ca,
    ...(alpn ? { ALPNProtocols: alpn } : {}),
  });
  await once(socket, 'secureConnect');
  const { fingerprint256 } = socket.getPeerCertificate();
  socket.destroy();
  return fingerprint256;
}

/** Waits until the process has printed `text` at least `count` times. */
async function waitForOutput(cadre: CadreProcess, text: string, count = 1): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (cadre.output().split(text).length - 1 < count) {
    if (Date.now() > deadline) throw new Error(`no "${text}" (×${count}) in:\n${cadre.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One HTTP/2 request on an open session. */
function h2Get(session: ClientHttp2Session, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let status = 0;
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (headers) => {
      status = Number(headers[':status']);
    });
    stream.on('data', (chunk: string) => {
      text += chunk;
    });
    stream.on('end', () => resolve({ status, text }));
    stream.on('error', reject);
  });
}

/**
 * A TLS client sending its request headers a line every 200 ms: what it got back before the server closed
 * the connection, and how long that took.
 */
async function slowHeaders(url: string, ca: string[]): Promise<{ received: string; ms: number }> {
  const started = Date.now();
  const { port } = new URL(url);
  // No ALPN offered: on an HTTP/2 server this is an HTTP/1.1 connection.
  const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), ca });
  await once(socket, 'secureConnect');
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk;
  });
  socket.on('error', () => undefined);
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
  let line = 0;
  const drip = setInterval(() => {
    if (!socket.destroyed) socket.write(`X-Slow-${line++}: ${line}\r\n`);
  }, 200);
  const closed = once(socket, 'close');
  const timeout = new Promise((_, reject) =>
    setTimeout(() => reject(new Error('the server kept a slow TLS connection open for 8 s')), 8_000),
  );
  try {
    await Promise.race([closed, timeout]);
  } finally {
    clearInterval(drip);
    socket.destroy();
  }
  return { received, ms: Date.now() - started };
}

describe('Cadre serving TLS itself (CADRE_TLS_CERT_FILE, CADRE_TLS_KEY_FILE, CADRE_HTTP2)', () => {
  let root: string;
  let untrack: () => void;
  let first: Certificate;
  let second: Certificate;
  let counter = 0;
  /** A fresh directory under `root`. */
  const dir = (name: string) => mkdtempSync(join(root, `${name}-`));

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'cadre-tls-'));
    untrack = track({ kind: 'dir', path: root });
    first = await makeCertificate(dir('first'));
    second = await makeCertificate(dir('second'));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    untrack();
  });

  /** The certificate and key files Cadre is given, first's to begin with; a test overwrites them to renew. */
  const liveFiles = (from: Certificate) => {
    const live = dir('live');
    const files = { certFile: join(live, 'cert.pem'), keyFile: join(live, 'key.pem') };
    copyFileSync(from.certFile, files.certFile);
    copyFileSync(from.keyFile, files.keyFile);
    return files;
  };
  const install = (files: { certFile: string; keyFile: string }, from: Certificate) => {
    copyFileSync(from.certFile, files.certFile);
    copyFileSync(from.keyFile, files.keyFile);
  };

  it('refuses to start, before touching any data, on half a TLS set-up or files it cannot serve', async () => {
    const refusals: Array<[Record<string, string>, string]> = [
      [
        { CADRE_TLS_CERT_FILE: first.certFile },
        'CADRE_TLS_KEY_FILE (unset): required with CADRE_TLS_CERT_FILE',
      ],
      [
        { CADRE_TLS_KEY_FILE: first.keyFile },
        'CADRE_TLS_CERT_FILE (unset): required with CADRE_TLS_KEY_FILE',
      ],
      [{ CADRE_HTTP2: 'true' }, 'CADRE_HTTP2=true: HTTP/2 is served over TLS only'],
      [
        { CADRE_TLS_CERT_FILE: join(root, 'absent.pem'), CADRE_TLS_KEY_FILE: first.keyFile },
        `CADRE_TLS_CERT_FILE: cannot read ${join(root, 'absent.pem')} (ENOENT)`,
      ],
      [
        { CADRE_TLS_CERT_FILE: first.keyFile, CADRE_TLS_KEY_FILE: first.keyFile },
        `CADRE_TLS_CERT_FILE: ${first.keyFile} holds no PEM certificate`,
      ],
      [
        { CADRE_TLS_CERT_FILE: first.certFile, CADRE_TLS_KEY_FILE: second.keyFile },
        `CADRE_TLS_KEY_FILE: ${second.keyFile} is not a private key of the certificate in ${first.certFile}`,
      ],
    ];
    for (const [env, message] of refusals) {
      const dataDir = join(root, `never-${++counter}`);
      const { code, output } = await runCadreToExit({ ...env, CADRE_DATA_DIR: dataDir });
      expect(code, output).toBe(1);
      expect(output).toContain('start-up refused');
      expect(output).toContain(message);
      expect(existsSync(dataDir), 'the data directory was created').toBe(false);
    }
  });

  it('serves HTTPS: health and a registry read for a client trusting the certificate through NODE_EXTRA_CA_CERTS, https links, Secure cookies', async () => {
    const dataDir = dir('data');
    const cadre = await startCadre({
      CADRE_DATA_DIR: dataDir,
      CADRE_TLS_CERT_FILE: first.certFile,
      CADRE_TLS_KEY_FILE: first.keyFile,
      CADRE_HEADERS_TIMEOUT_MS: '1000',
    });
    try {
      expect(cadre.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(cadre.output()).toContain(first.fingerprint256);

      // A Node.js client (fetch) as docs/operations.md sets it up: trusted through NODE_EXTRA_CA_CERTS; the
      // same client without it fails its handshake.
      const client = `
        try {
          const health = await fetch(process.argv[1] + '/healthz');
          const experts = await (await fetch(process.argv[1] + '/registry/experts?sort=name&order=asc')).json();
          console.log(JSON.stringify({ health: health.status, names: experts.data.experts.map((e) => e.name) }));
        } catch (error) {
          console.log(JSON.stringify({ error: error.cause?.code ?? error.message }));
        }`;
      const node = (env: Record<string, string>) =>
        run(process.execPath, ['--input-type=module', '-e', client, cadre.url], {
          env: { PATH: process.env.PATH ?? '', ...env },
        }).then(({ stdout }) => JSON.parse(stdout) as { health?: number; names?: string[]; error?: string });
      expect(await node({ NODE_EXTRA_CA_CERTS: first.certFile })).toEqual({
        health: 200,
        names: ['researcher', 'web-search', 'writer'],
      });
      expect(await node({})).toEqual({ error: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
      // Only TLS on the port: a plain HTTP request gets no answer.
      await expect(fetch(`${cadre.url.replace('https:', 'http:')}/healthz`)).rejects.toThrow();

      // Without CADRE_PUBLIC_URL, links use the address Cadre listens on, https; the session cookie is Secure.
      const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
        apiKey: string;
        owner: { password: string };
      };
      const ca = [first.pem];
      const login = await request(cadre.url, '/auth/login', {
        ca,
        method: 'POST',
        body: { email: 'demo@localhost', password: bootstrap.owner.password },
      });
      expect(login.status, login.text).toBe(200);
      expect(String(login.headers['set-cookie'])).toMatch(/; Secure/);
      const checkout = await request(cadre.url, '/api/v1/organizations/demo/billing/checkout', {
        ca,
        method: 'POST',
        headers: { authorization: `Bearer ${bootstrap.apiKey}`, 'idempotency-key': 'tls-1' },
        body: {
          planKey: 'plus',
          successUrl: 'https://app.example.com/ok',
          cancelUrl: 'https://app.example.com/no',
        },
      });
      expect(checkout.status, checkout.text).toBe(200);
      expect((JSON.parse(checkout.text) as { data: { url: string } }).data.url).toMatch(
        new RegExp(`^${cadre.url}/billing/local/checkout/lcs_`),
      );

      // The slow-client bound holds over TLS: headers not complete within 1 s close the connection.
      const slow = await slowHeaders(cadre.url, ca);
      expect(
        slow.received === '' || slow.received.startsWith('HTTP/1.1 408') ? 'closed' : slow.received,
      ).toBe('closed');
      expect(slow.ms).toBeLessThan(4_000);
      expect(await cadre.stop()).toBe(0);
    } finally {
      await cadre.stop('SIGKILL');
    }
  });

  it('on SIGHUP serves the renewed certificate to new connections while an open keep-alive connection goes on; a broken pair keeps the previous one', async () => {
    const files = liveFiles(first);
    const cadre = await startCadre({
      CADRE_DATA_DIR: dir('data'),
      CADRE_BOOTSTRAP: 'off',
      CADRE_TLS_CERT_FILE: files.certFile,
      CADRE_TLS_KEY_FILE: files.keyFile,
    });
    const ca = [first.pem, second.pem];
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
    try {
      const before = await request(cadre.url, '/healthz', { agent });
      expect(before.status).toBe(200);
      expect(before.fingerprint256).toBe(first.fingerprint256);

      install(files, second);
      cadre.child.kill('SIGHUP');
      await waitForOutput(cadre, 'TLS certificate reloaded');
      expect(cadre.output()).toContain(second.serialNumber);
      expect(await servedFingerprint(cadre.url, ca)).toBe(second.fingerprint256);
      // The connection opened before the reload is still open, still on the first certificate, and served.
      const kept = await request(cadre.url, '/registry/experts', { agent });
      expect(kept.status).toBe(200);
      expect(kept.reusedSocket).toBe(true);
      expect(kept.fingerprint256).toBe(first.fingerprint256);

      // Broken pairs: an error line each, the second certificate still served, the process alive.
      const broken: Array<[() => void, string]> = [
        [() => writeFileSync(files.certFile, 'half a certifi'), `${files.certFile} holds no PEM certificate`],
        [
          () => {
            install(files, second);
            rmSync(files.keyFile);
          },
          `cannot read ${files.keyFile} (ENOENT)`,
        ],
        [
          () => {
            copyFileSync(first.certFile, files.certFile);
            copyFileSync(second.keyFile, files.keyFile);
          },
          'is not a private key of the certificate',
        ],
      ];
      for (const [index, [breakFiles, reason]] of broken.entries()) {
        breakFiles();
        cadre.child.kill('SIGHUP');
        await waitForOutput(cadre, 'TLS reload failed, still serving the previous certificate', index + 1);
        expect(cadre.output()).toContain(reason);
        expect(await servedFingerprint(cadre.url, ca)).toBe(second.fingerprint256);
        expect((await request(cadre.url, '/healthz', { ca })).status).toBe(200);
        expect(cadre.child.exitCode).toBeNull();
      }

      // Mended, the next SIGHUP applies it.
      install(files, first);
      cadre.child.kill('SIGHUP');
      await waitForOutput(cadre, 'TLS certificate reloaded', 2);
      expect(await servedFingerprint(cadre.url, ca)).toBe(first.fingerprint256);
      // No key material in the logs.
      for (const key of [first, second].map((c) => readFileSync(c.keyFile, 'utf8'))) {
        const body = key.split('\n').filter((line) => line && !line.startsWith('-----'));
        for (const line of body) expect(cadre.output()).not.toContain(line);
      }
      agent.destroy();
      expect(await cadre.stop()).toBe(0);
    } finally {
      agent.destroy();
      await cadre.stop('SIGKILL');
    }
  });

  it('CADRE_HTTP2=true: HTTP/2 through ALPN and HTTP/1.1 on the same port, renewal under open sessions, a prompt drain on SIGTERM', async () => {
    const files = liveFiles(first);
    const cadre = await startCadre({
      CADRE_DATA_DIR: dir('data'),
      CADRE_TLS_CERT_FILE: files.certFile,
      CADRE_TLS_KEY_FILE: files.keyFile,
      CADRE_HTTP2: 'true',
      CADRE_HEADERS_TIMEOUT_MS: '1000',
    });
    const ca = [first.pem, second.pem];
    const sessions: ClientHttp2Session[] = [];
    const open = async () => {
      const session = http2Connect(cadre.url, { ca });
      session.on('error', () => undefined);
      sessions.push(session);
      await once(session, 'connect');
      return session;
    };
    try {
      const session = await open();
      expect(session.alpnProtocol).toBe('h2');
      expect((await h2Get(session, '/healthz')).status).toBe(200);
      const experts = await h2Get(session, '/registry/experts?sort=name&order=asc');
      expect(experts.status).toBe(200);
      expect(
        (JSON.parse(experts.text) as { data: { experts: Array<{ name: string }> } }).data.experts.map(
          (e) => e.name,
        ),
      ).toEqual(['researcher', 'web-search', 'writer']);

      // A client that offers no h2 gets HTTP/1.1, with the same slow-client bound as plain HTTPS.
      const http1 = await request(cadre.url, '/healthz', { ca });
      expect(http1.status).toBe(200);
      expect(http1.httpVersion).toBe('1.1');
      const slow = await slowHeaders(cadre.url, ca);
      expect(
        slow.received === '' || slow.received.startsWith('HTTP/1.1 408') ? 'closed' : slow.received,
      ).toBe('closed');
      expect(slow.ms).toBeLessThan(4_000);

      install(files, second);
      cadre.child.kill('SIGHUP');
      await waitForOutput(cadre, 'TLS certificate reloaded');
      expect(await servedFingerprint(cadre.url, ca, ['h2'])).toBe(second.fingerprint256);
      const renewed = await open();
      expect(renewed.alpnProtocol).toBe('h2');
      expect((await h2Get(renewed, '/healthz')).status).toBe(200);
      // The session opened before the reload goes on.
      expect((await h2Get(session, '/healthz')).status).toBe(200);

      // Both sessions still open and idle: SIGTERM closes them (GOAWAY) and exits 0 at once, not after the
      // shutdown timeout (10 s) an idle session would hold it for.
      const started = Date.now();
      expect(await cadre.stop()).toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(cadre.output()).not.toContain('shutdown timed out');
    } finally {
      for (const session of sessions) session.destroy();
      await cadre.stop('SIGKILL');
    }
  });
});
