import { randomBytes } from 'node:crypto';
import type { TestOrganization } from '../support/fixtures.js';
import type { TestServer } from '../support/server.js';

/** A unique reverse-DNS server name, so tests sharing a server never collide. */
export const serverName = (prefix = 'tool') => `com.example.${randomBytes(3).toString('hex')}/${prefix}`;

/** A server.json with one npm package run over stdio, and a secret environment variable. */
export function npmServer(name: string, version = '1.0.0', extra: Record<string, unknown> = {}) {
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json',
    name,
    description: `The ${name} server`,
    title: 'Example tool',
    version,
    repository: { url: 'https://github.com/example/tool', source: 'github' },
    packages: [
      {
        registryType: 'npm',
        registryBaseUrl: 'https://registry.npmjs.org',
        identifier: '@example/tool',
        version,
        transport: { type: 'stdio' },
        packageArguments: [{ type: 'positional', valueHint: 'directory', value: '.' }],
        environmentVariables: [{ name: 'EXAMPLE_TOKEN', isSecret: true, isRequired: true }],
      },
    ],
    ...extra,
  };
}

/** A server.json with one streamable-http remote and a secret header. */
export function remoteServer(name: string, version: string) {
  return {
    name,
    description: `The ${name} remote server`,
    version,
    remotes: [
      {
        type: 'streamable-http',
        url: 'https://mcp.example.com/mcp',
        headers: [{ name: 'Authorization', value: 'Bearer {token}', isSecret: true }],
      },
    ],
  };
}

export async function publish(server: TestServer, org: TestOrganization, body: unknown) {
  const res = await server.request('POST', '/api/v1/mcp/servers', { key: org.ownerKey, body });
  if (res.status !== 201) throw new Error(`publish: ${res.status} ${res.text}`);
  return res;
}

export async function setAccess(
  server: TestServer,
  org: TestOrganization,
  access: 'public' | 'key' | 'link',
) {
  const res = await server.request('PUT', '/api/v1/mcp/catalog', { key: org.ownerKey, body: { access } });
  if (res.status !== 200) throw new Error(`setAccess: ${res.status} ${res.text}`);
}

export const enc = encodeURIComponent;
