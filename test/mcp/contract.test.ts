import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { enc, npmServer, publish, remoteServer, serverName, setAccess } from './helpers.js';
import { type ContractPart, contractProblems } from './registry-contract.js';

// Every answer of the v0.1 API, held to the MCP Registry's own contract (registry-contract.ts): the lists,
// the versions, one version, `latest`, deleted and deprecated ones, the 404s, through every access mode.

let server: TestServer;
let org: TestOrganization;
let names: string[];

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server);
  names = [serverName('npm'), serverName('remote'), serverName('rich')];
  await publish(server, org, npmServer(names[0]!, '1.0.0'));
  await publish(server, org, npmServer(names[0]!, '1.1.0-beta.1'));
  await publish(server, org, remoteServer(names[1]!, '2025.10.1'));
  await publish(server, org, {
    ...npmServer(names[2]!, '3.0.0'),
    websiteUrl: 'https://example.com/rich',
    icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' }],
    packages: [
      {
        registryType: 'oci',
        identifier: 'docker.io/example/rich',
        version: '3.0.0',
        runtimeHint: 'docker',
        transport: { type: 'streamable-http', url: 'http://localhost:{port}/mcp' },
        runtimeArguments: [
          { type: 'named', name: '-p', value: '{port}:8080', variables: { port: { default: '8080' } } },
        ],
      },
      {
        registryType: 'pypi',
        identifier: 'example-rich',
        version: '3.0.0',
        transport: { type: 'stdio' },
        environmentVariables: [{ name: 'RICH_MODE', choices: ['fast', 'safe'], default: 'safe' }],
      },
    ],
    remotes: [{ type: 'sse', url: 'https://rich.example.com/sse' }],
    _meta: { 'io.modelcontextprotocol.registry/publisher-provided': { tool: 'cadre-tests' } },
  });
  await server.request('PATCH', `/api/v1/mcp/servers/${enc(names[0]!)}/versions/1.0.0/status`, {
    key: org.ownerKey,
    body: { status: 'deprecated', statusMessage: 'Use 1.1.0' },
  });
  await server.request('PATCH', `/api/v1/mcp/servers/${enc(names[1]!)}/versions/2025.10.1/status`, {
    key: org.ownerKey,
    body: { status: 'deleted' },
  });
});
afterAll(() => server.close());

function expectContract(part: ContractPart, body: unknown, what: string) {
  expect(contractProblems(part, body), what).toEqual([]);
}

const reads = (base: string) =>
  [
    [`${base}/servers`, 'ServerList'],
    [`${base}/servers?version=latest&limit=1`, 'ServerList'],
    [`${base}/servers?search=example&limit=2`, 'ServerList'],
    [`${base}/servers?updated_since=2000-01-01T00:00:00Z`, 'ServerList'],
    [`${base}/servers?include_deleted=true&version=latest`, 'ServerList'],
    ...[0, 1, 2].flatMap((index) => [
      [`${base}/servers/NAME${index}/versions?include_deleted=true`, 'ServerList'],
      [`${base}/servers/NAME${index}/versions/latest?include_deleted=true`, 'ServerResponse'],
    ]),
    [`${base}/servers/NAME0/versions/1.0.0`, 'ServerResponse'],
    [`${base}/servers/com.example%2Fnothing/versions`, 'NotFound'],
    [`${base}/servers/NAME0/versions/9.9.9`, 'NotFound'],
    [`${base}/servers/NAME1/versions/2025.10.1`, 'NotFound'],
  ] as Array<[string, ContractPart]>;

const filled = (path: string) => path.replace(/NAME(\d)/, (_, index: string) => enc(names[Number(index)]!));

describe('every v0.1 answer conforms to the MCP Registry contract', () => {
  it('public catalog', async () => {
    await setAccess(server, org, 'public');
    for (const [path, part] of reads(`/mcp/${org.slug}/v0.1`)) {
      const res = await server.request('GET', filled(path));
      expect(res.status, `${path}: ${res.text}`).toBe(part === 'NotFound' ? 404 : 200);
      expectContract(part, res.body, path);
    }
  });

  it('private catalog read with a key, and behind a catalog link', async () => {
    await setAccess(server, org, 'link');
    const reader = await createKey(server, org, org.ownerId, {
      type: 'organization',
      permissions: ['mcp:read'],
    });
    const link = await server.request<{ data: { url: string } }>('POST', '/api/v1/mcp/catalog/link', {
      key: org.ownerKey,
    });
    const linkBase = `${new URL(link.body.data.url).pathname}/v0.1`;
    for (const [base, key] of [
      [`/mcp/${org.slug}/v0.1`, reader.key],
      [linkBase, undefined],
    ] as const) {
      for (const [path, part] of reads(base)) {
        const res = await server.request('GET', filled(path), key ? { key } : {});
        expect(res.status, `${path}: ${res.text}`).toBe(part === 'NotFound' ? 404 : 200);
        expectContract(part, res.body, path);
      }
    }
  });

  it('the contract is not a formality: it refuses what the registry would', () => {
    const good = { server: npmServer('com.example/x', '1.0.0'), _meta: {} };
    expect(contractProblems('ServerResponse', good)).toEqual([]);
    expect(
      contractProblems('ServerResponse', {
        ...good,
        _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', extra: true } },
      }),
    ).not.toEqual([]);
    expect(contractProblems('ServerDetail', { ...good.server, name: 'no-slash' })).not.toEqual([]);
    const latestPackage = { ...good.server, packages: [{ ...good.server.packages[0], version: 'latest' }] };
    expect(contractProblems('ServerDetail', latestPackage)).not.toEqual([]);
  });
});
