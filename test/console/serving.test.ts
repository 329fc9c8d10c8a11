import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const assetOf = (html: string, pattern: RegExp) => html.match(pattern)?.[1];

describe('serving the console', () => {
  it('answers console pages with the app shell: not cached, a CSP without inline script, never framed', async () => {
    for (const path of ['/', '/experts/@acme/writer@1.2.0', '/playground', '/sign-in']) {
      const res = await server.request('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.text).toContain('<div id="root"></div>');
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('revalidates the shell with its ETag', async () => {
    const first = await server.request('GET', '/');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^".+"$/);
    const again = await server.request('GET', '/', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('serves hashed assets immutable and compressed, and 404s unknown ones', async () => {
    const html = (await server.request('GET', '/')).text;
    const script = assetOf(html, /src="(\/assets\/[^"]+\.js)"/);
    const style = assetOf(html, /href="(\/assets\/[^"]+\.css)"/);
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    for (const path of [script!, style!]) {
      const res = await server.request('GET', path, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-encoding')).toBe('br');
      expect(res.headers.get('vary')).toContain('accept-encoding');
    }
    const plain = await server.request('GET', script!, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.text).toContain('createRoot');
    expect((await server.request('GET', '/assets/nope.js')).status).toBe(404);
    expect((await server.request('GET', '/assets/../../package.json')).status).toBe(404);
  });

  it('answers other paths: a browser gets the app with 404, a program gets JSON, API prefixes stay JSON', async () => {
    const page = await server.request('GET', '/no/such/page', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const program = await server.request<{ error: { code: string } }>('GET', '/no/such/page');
    expect(program.status).toBe(404);
    expect(program.body.error.code).toBe('not_found');
    for (const path of ['/api/nope', '/registry/nope', '/admin/nope', '/auth/nope']) {
      const res = await server.request('GET', path, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toContain('application/json');
    }
    const post = await server.request('POST', '/no/such/page', { headers: { accept: 'text/html' } });
    expect(post.headers.get('content-type')).toContain('application/json');
  });
});

describe('without a built console', () => {
  let empty: string;
  let bare: TestServer;
  beforeAll(async () => {
    empty = mkdtempSync(join(tmpdir(), 'cadre-console-'));
    writeFileSync(join(empty, 'README'), 'not a build');
    bare = await startServer({ consoleDir: empty });
  });
  afterAll(async () => {
    await bare?.close();
    rmSync(empty, { recursive: true, force: true });
  });

  it('says how to build it instead of failing', async () => {
    const res = await bare.request('GET', '/');
    expect(res.status).toBe(503);
    expect(res.text).toContain('npm run build');
  });
});
