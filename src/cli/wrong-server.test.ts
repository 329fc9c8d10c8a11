import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../../test/support/cli-harness.js';
import { ADMIN_TOKEN, startServer, type TestServer } from '../../test/support/server.js';

// The CLI pointed at something that is not Cadre's base URL: one line saying what is wrong and what to
// pass, exit 1, never the body it got (docs/config.md, the CLI's settings).

let other: Server | undefined;
afterEach(() => new Promise<void>((done) => (other ? other.close(() => done()) : done())));

/** Another server on loopback answering every request with one response. */
async function serving(status: number, contentType: string, body: string): Promise<string> {
  other = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  });
  await new Promise<void>((done) => other!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
}

const PAGE =
  '<!doctype html><html><head><title>Welcome to nginx!</title></head><body>secret-page</body></html>';

let cadre: TestServer;
let cwd: string;
beforeAll(async () => {
  cadre = await startServer();
  cwd = tempProject({});
});
afterAll(() => cadre.close());

/** Every command family: registry reads, admin commands (token), member commands (API key). */
const COMMANDS: Array<{ argv: string[]; env: Record<string, string> }> = [
  { argv: ['experts', 'list'], env: {} },
  { argv: ['admin', 'org', 'limits', 'acme'], env: { CADRE_ADMIN_TOKEN: ADMIN_TOKEN } },
  { argv: ['members', 'invitations', '--org', 'acme'], env: { CADRE_API_KEY: 'cadre_sk_not-checked' } },
];

async function oneLine(argv: string[], env: Record<string, string>): Promise<string> {
  const run = await runCli(argv, { cwd, env });
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  const lines = run.stderr.split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('the CLI explains a URL that is not Cadre', () => {
  it("a path of Cadre's API in --url or CADRE_URL is refused before any request, naming the base URL", async () => {
    const origin = cadre.url;
    for (const { argv, env } of COMMANDS) {
      expect(await oneLine([...argv, '--url', `${origin}/registry`], env)).toBe(
        `error: ${origin}/registry (from --url) is not Cadre's base URL: /registry is a path of Cadre's API; pass --url ${origin} (or set CADRE_URL to it)`,
      );
      expect(await oneLine(argv, { ...env, CADRE_URL: `${origin}/api/v1/` })).toBe(
        `error: ${origin}/api/v1/ (from CADRE_URL) is not Cadre's base URL: /api/v1 is a path of Cadre's API; pass --url ${origin} (or set CADRE_URL to it)`,
      );
    }
  });

  it('Cadre reached under another path says it has no such route and names the base URL', async () => {
    expect(await oneLine(['experts', 'list', '--url', `${cadre.url}/cadre`], {})).toBe(
      `error: ${cadre.url}/cadre is not Cadre's base URL: Cadre answered that it has no route for GET /registry/experts; pass --url ${cadre.url} (or set CADRE_URL to it)`,
    );
  });

  it('a web page, at any status, is named as one and its body never printed', async () => {
    for (const status of [200, 404]) {
      const url = await serving(status, 'text/html; charset=utf-8', PAGE);
      for (const { argv, env } of COMMANDS) {
        const line = await oneLine([...argv, '--url', url], env);
        expect(line).toMatch(
          new RegExp(
            `^error: ${url} is not Cadre's API: it answered ${status} with an HTML page to GET /\\S+; pass Cadre's base URL with --url or CADRE_URL, e\\.g\\. http://127\\.0\\.0\\.1:3000$`,
          ),
        );
        expect(line).not.toContain('secret-page');
      }
      await new Promise<void>((done) => other!.close(() => done()));
      other = undefined;
    }
  });

  it("another JSON API is named as not Cadre's, for an error and for a success", async () => {
    for (const [status, body] of [
      [404, '{"message":"Not Found","documentation_url":"https://docs.example.com"}'],
      [200, '{"items":[],"total":0}'],
    ] as const) {
      const url = await serving(status, 'application/json', body);
      for (const { argv, env } of COMMANDS) {
        const line = await oneLine([...argv, '--url', url], env);
        expect(line).toMatch(
          new RegExp(`^error: ${url} is not Cadre's API: it answered .*JSON that is not Cadre's`),
        );
        expect(line).toContain("pass Cadre's base URL with --url or CADRE_URL");
        expect(line).not.toContain('documentation_url');
      }
      await new Promise<void>((done) => other!.close(() => done()));
      other = undefined;
    }
  });

  it("Cadre's own errors at the right base URL are still Cadre's errors", async () => {
    const run = await runCli(['experts', 'info', 'nobody-has-this@1.0.0', '--url', cadre.url], {
      cwd,
      env: {},
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: registry answered 404 Not Found: /);
  });
});
