import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrograms, missingProgramMessage } from '../../scripts/test-programs.mjs';
import { readTlsCredentials } from '../../src/http/tls.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { ROOT } from '../support/process.js';
import { startServer, type TestServer } from '../support/server.js';
import { npmServer, publish, remoteServer, setAccess } from './helpers.js';

/**
 * Replays what VS Code's MCP gallery (src/vs/platform/mcp/common/mcpGalleryService.ts and
 * mcpGalleryManifestService.ts in microsoft/vscode) does with `chat.mcp.gallery.serviceUrl`, against a
 * Cadre serving HTTPS: the version probe (`/v0.1/servers?limit=1`), the list (`limit=50&version=latest`),
 * a search, the next page (the cursor appended as it is, without the search), a server's latest version
 * (`{name}` URL-encoded), one version, and the install configuration it writes from a version's packages or
 * remotes. A web view asks with CORS, so each request is preceded by its preflight.
 */

const ORIGIN = 'vscode-file://vscode-app';
/** Publishes and sets access over plain HTTP (the suite's helpers); `server` serves HTTPS on the same data. */
let admin: TestServer;
let server: TestServer;
let org: TestOrganization;
let dir: string;
let ca: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cadre-mcp-tls-'));
  const openssl = findPrograms().openssl;
  if (!openssl) throw new Error(missingProgramMessage('openssl'));
  const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const command = docs.split('\n').find((line) => line.startsWith('openssl req -x509 '))!;
  await promisify(execFile)(openssl, command.split(/\s+/).slice(1), { cwd: dir });
  ca = readFileSync(join(dir, 'cadre-cert.pem'), 'utf8');
  const credentials = readTlsCredentials({
    certFile: join(dir, 'cadre-cert.pem'),
    keyFile: join(dir, 'cadre-key.pem'),
  });
  admin = await startServer();
  server = await startServer({ database: admin.context.database, tls: { credentials, http2: false } });
  org = await createOrganization(admin);
});
afterAll(async () => {
  await server?.close();
  await admin?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/** One request as the IDE's network stack sends it: HTTPS, checked against the served certificate. */
function send(url: string, method: 'GET' | 'OPTIONS', headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method, ca, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          json: text ? JSON.parse(text) : undefined,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** A cross-origin GET from the IDE's web view: the preflight first, then the request. */
async function galleryGet(url: string): Promise<Answer> {
  const preflight = await send(url, 'OPTIONS', {
    origin: ORIGIN,
    'access-control-request-method': 'GET',
    'access-control-request-headers': 'content-type',
  });
  expect(preflight.status, url).toBe(204);
  expect(preflight.headers['access-control-allow-origin']).toBe('*');
  expect(String(preflight.headers['access-control-allow-methods'])).toContain('GET');
  expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('content-type');
  const answer = await send(url, 'GET', { origin: ORIGIN, accept: 'application/json' });
  expect(answer.headers['access-control-allow-origin'], url).toBe('*');
  return answer;
}

type Official = { status: string; isLatest: boolean; publishedAt: string };
interface RawEntry {
  server: {
    name: string;
    description: string;
    version: string;
    packages?: Array<Record<string, unknown>>;
    remotes?: Array<{ type: string; url: string; headers?: Array<Record<string, unknown>> }>;
  };
  _meta: { 'io.modelcontextprotocol.registry/official': Official };
}

/** The gallery's v0.1 reading of a list: a `servers` array whose entries have name, description, version. */
function galleryServers(json: unknown): { servers: RawEntry[]; nextCursor?: string } {
  const list = json as { servers: RawEntry[]; metadata: { count: number; nextCursor?: string } };
  expect(Array.isArray(list.servers)).toBe(true);
  for (const entry of list.servers) {
    expect(typeof entry.server.name).toBe('string');
    expect(typeof entry.server.description).toBe('string');
    expect(typeof entry.server.version).toBe('string');
    expect(entry._meta['io.modelcontextprotocol.registry/official'].status).toBeTypeOf('string');
  }
  expect(list.metadata.count).toBe(list.servers.length);
  return {
    servers: list.servers,
    ...(list.metadata.nextCursor ? { nextCursor: list.metadata.nextCursor } : {}),
  };
}

type Input = { id: string; type: 'promptString'; description?: string; password: boolean };

/** The mcp.json entry the IDE writes for a version: its first package, else its first remote. */
function installConfiguration(entry: RawEntry) {
  const inputs: Input[] = [];
  const inputValue = (variable: Record<string, unknown>) => {
    if (typeof variable.value === 'string') return variable.value;
    const id = String(variable.name);
    inputs.push({
      id,
      type: 'promptString',
      password: variable.isSecret === true,
      description: variable.description as string,
    });
    return `\${input:${id}}`;
  };
  const pkg = entry.server.packages?.[0];
  if (pkg) {
    const id = String(pkg.identifier);
    const version = String(pkg.version);
    const args = ((pkg.packageArguments as Array<Record<string, unknown>>) ?? []).map((arg) =>
      String(arg.value ?? arg.default ?? arg.valueHint),
    );
    const env = Object.fromEntries(
      ((pkg.environmentVariables as Array<Record<string, unknown>>) ?? []).map((variable) => [
        String(variable.name),
        inputValue(variable),
      ]),
    );
    const run: Record<string, { command: string; args: string[] }> = {
      npm: { command: 'npx', args: [`${id}@${version}`, ...args] },
      pypi: { command: 'uvx', args: [`${id}==${version}`, ...args] },
      oci: { command: 'docker', args: ['run', '-i', '--rm', `${id}:${version}`, ...args] },
    };
    return { config: { type: 'stdio', ...run[String(pkg.registryType)]!, env }, inputs };
  }
  const remote = entry.server.remotes![0]!;
  const headers = Object.fromEntries(
    (remote.headers ?? []).map((header) => [String(header.name), inputValue(header)]),
  );
  return { config: { type: remote.type === 'sse' ? 'sse' : 'http', url: remote.url, headers }, inputs };
}

describe("VS Code's MCP gallery against Cadre over HTTPS", () => {
  it('probes, lists, searches, pages, reads latest and a version, and writes the install configuration', async () => {
    await setAccess(admin, org, 'public');
    for (let index = 0; index < 53; index++) {
      const name = `io.github.acme/server-${String(index).padStart(2, '0')}`;
      await publish(admin, org, index === 7 ? remoteServer(name, '1.0.0') : npmServer(name, '1.0.0'));
    }
    await publish(admin, org, npmServer('io.github.acme/server-03', '1.2.0'));

    // chat.mcp.gallery.serviceUrl, as the admin pasted it (with a trailing slash, which VS Code drops).
    const serviceUrl = `${server.url}/mcp/${org.slug}/`.replace(/\/$/, '');
    expect(serviceUrl.startsWith('https://')).toBe(true);
    const serversUrl = `${serviceUrl}/v0.1/servers`;

    const probe = await galleryGet(`${serversUrl}?limit=1`);
    expect(probe.status).toBe(200);

    const first = await galleryGet(`${serversUrl}?limit=50&version=latest`);
    expect(first.status).toBe(200);
    const page1 = galleryServers(first.json);
    expect(page1.servers).toHaveLength(50);
    expect(page1.nextCursor).toBeDefined();
    const next = await galleryGet(`${serversUrl}?limit=50&version=latest&cursor=${page1.nextCursor}`);
    const page2 = galleryServers(next.json);
    expect(page2.nextCursor).toBeUndefined();
    const listed = [...page1.servers, ...page2.servers].map((entry) => entry.server.name);
    expect(listed).toHaveLength(53);
    expect(new Set(listed).size).toBe(53);

    const search = await galleryGet(
      `${serversUrl}?limit=50&version=latest&search=${encodeURIComponent('SERVER-0')}`,
    );
    expect(galleryServers(search.json).servers.map((entry) => entry.server.name)).toEqual(
      Array.from({ length: 10 }, (_, index) => `io.github.acme/server-0${index}`),
    );

    const latest = await galleryGet(
      `${serversUrl}/${encodeURIComponent('io.github.acme/server-03')}/versions/latest`,
    );
    expect(latest.status).toBe(200);
    const latestEntry = latest.json as RawEntry;
    expect(latestEntry.server.version).toBe('1.2.0');
    expect(latestEntry._meta['io.modelcontextprotocol.registry/official'].isLatest).toBe(true);

    const older = await galleryGet(
      `${serversUrl}/${encodeURIComponent('io.github.acme/server-03')}/versions/1.0.0`,
    );
    expect((older.json as RawEntry).server.version).toBe('1.0.0');
    expect((older.json as RawEntry)._meta['io.modelcontextprotocol.registry/official'].isLatest).toBe(false);

    expect(installConfiguration(latestEntry)).toEqual({
      config: {
        type: 'stdio',
        command: 'npx',
        args: ['@example/tool@1.2.0', '.'],
        env: { EXAMPLE_TOKEN: `\${input:EXAMPLE_TOKEN}` },
      },
      inputs: [{ id: 'EXAMPLE_TOKEN', type: 'promptString', password: true, description: undefined }],
    });
    const remote = await galleryGet(
      `${serversUrl}/${encodeURIComponent('io.github.acme/server-07')}/versions/latest`,
    );
    expect(installConfiguration(remote.json as RawEntry).config).toEqual({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer {token}' },
    });

    // A server the catalog does not hold: a 4xx, which the gallery reads as "not in the gallery".
    const missing = await galleryGet(
      `${serversUrl}/${encodeURIComponent('io.github.acme/none')}/versions/latest`,
    );
    expect(missing.status).toBe(404);
  });

  it('a private catalog: no credential is refused, the catalog link serves the same gallery', async () => {
    const privateOrg = await createOrganization(admin);
    await publish(admin, privateOrg, npmServer('io.github.private/tool', '1.0.0'));
    const refused = await galleryGet(`${server.url}/mcp/${privateOrg.slug}/v0.1/servers?limit=1`);
    expect(refused.status).toBe(401);
    await setAccess(admin, privateOrg, 'link');
    const link = await admin.request<{ data: { url: string } }>('POST', '/api/v1/mcp/catalog/link', {
      key: privateOrg.ownerKey,
    });
    const path = new URL(link.body.data.url).pathname;
    const serversUrl = `${server.url}${path}/v0.1/servers`;
    expect((await galleryGet(`${serversUrl}?limit=1`)).status).toBe(200);
    const list = galleryServers((await galleryGet(`${serversUrl}?limit=50&version=latest`)).json);
    expect(list.servers.map((entry) => entry.server.name)).toEqual(['io.github.private/tool']);
  });
});
