import { describe, expect, it } from 'vitest';
import type { components } from '../../console/src/api/schema.js';
import { mcpJsonFor } from '../../console/src/pages/mcp-install.js';

// The install snippet of a catalog server's console page (docs/mcp-registry.md "The install snippet"): the
// mcp.json VS Code writes when it installs a server version from a gallery, for each kind of package and for a
// remote, with every secret a prompted input and never a value.

type ServerJson = components['schemas']['McpServerJson'];
type Package = NonNullable<ServerJson['packages']>[number];

const NAME = 'com.example/files';
/** What mcp.json holds where VS Code puts what a person typed: `${input:id}`. */
const input = (id: string) => `\${input:${id}}`;

function withPackage(pkg: Partial<Package> & Pick<Package, 'registryType' | 'identifier'>): ServerJson {
  return {
    name: NAME,
    description: 'Files',
    version: '1.2.0',
    packages: [{ version: '1.2.0', transport: { type: 'stdio' }, ...pkg }],
  };
}

const token = { name: 'API_TOKEN', description: 'Your API token', isSecret: true, isRequired: true };

describe('the mcp.json VS Code writes for a catalog server version', () => {
  it('runs an npm package with npx, its runtime arguments first, and prompts for a secret variable', () => {
    const json = mcpJsonFor(
      withPackage({
        registryType: 'npm',
        identifier: '@example/files',
        runtimeArguments: [{ type: 'named', name: '--yes' }],
        packageArguments: [
          { type: 'positional', valueHint: 'directory', value: '.' },
          { type: 'named', name: '--mode', description: 'How to open files', choices: ['read', 'write'] },
        ],
        environmentVariables: [token, { name: 'LOG_LEVEL', value: 'info' }],
      }),
    );
    expect(json).toEqual({
      servers: {
        [NAME]: {
          type: 'stdio',
          command: 'npx',
          args: ['--yes', '@example/files@1.2.0', '.', '--mode', input('mode')],
          env: { API_TOKEN: input('API_TOKEN'), LOG_LEVEL: 'info' },
        },
      },
      inputs: [
        { id: 'API_TOKEN', type: 'promptString', description: 'Your API token', password: true },
        {
          id: 'mode',
          type: 'pickString',
          description: 'How to open files',
          password: false,
          options: ['read', 'write'],
        },
      ],
    });
  });

  it('runs a PyPI package with uvx at its exact version', () => {
    const json = mcpJsonFor(
      withPackage({
        registryType: 'pypi',
        identifier: 'example-files',
        packageArguments: [
          { type: 'positional', valueHint: 'root', description: 'The root folder', default: '/srv' },
        ],
      }),
    );
    expect(json).toEqual({
      servers: { [NAME]: { type: 'stdio', command: 'uvx', args: ['example-files==1.2.0', input('root')] } },
      inputs: [
        {
          id: 'root',
          type: 'promptString',
          description: 'The root folder',
          password: false,
          default: '/srv',
        },
      ],
    });
  });

  it('runs an OCI image with docker run, passing each variable into the container', () => {
    const json = mcpJsonFor(
      withPackage({
        registryType: 'oci',
        identifier: 'ghcr.io/example/files',
        runtimeArguments: [{ type: 'named', name: '--network', value: 'host' }],
        environmentVariables: [token, { name: 'REGION', value: 'eu' }],
        packageArguments: [{ type: 'named', name: '--read-only' }],
      }),
    );
    expect(json?.servers[NAME]).toEqual({
      type: 'stdio',
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '--network',
        'host',
        '-e',
        'API_TOKEN',
        '-e',
        'REGION',
        'ghcr.io/example/files:1.2.0',
        '--read-only',
      ],
      env: { API_TOKEN: input('API_TOKEN'), REGION: 'eu' },
    });
  });

  it('runs a NuGet package with dnx, confirmed, its own arguments after --', () => {
    const bare = mcpJsonFor(withPackage({ registryType: 'nuget', identifier: 'Example.Files' }));
    expect(bare).toEqual({
      servers: { [NAME]: { type: 'stdio', command: 'dnx', args: ['Example.Files@1.2.0', '--yes'] } },
    });
    const withArguments = mcpJsonFor(
      withPackage({
        registryType: 'nuget',
        identifier: 'Example.Files',
        packageArguments: [{ type: 'positional', value: 'serve' }],
      }),
    );
    expect(withArguments?.servers[NAME]).toEqual({
      type: 'stdio',
      command: 'dnx',
      args: ['Example.Files@1.2.0', '--yes', '--', 'serve'],
    });
  });

  it('connects to a remote over http, its header and URL variables prompted, secrets as passwords', () => {
    const json = mcpJsonFor({
      name: NAME,
      description: 'Files',
      version: '1.2.0',
      remotes: [
        {
          type: 'sse',
          url: 'https://{tenant}.files.example.com/sse',
          variables: { tenant: { description: 'Your tenant', default: 'acme' } },
          headers: [
            { name: 'Authorization', value: 'Bearer {token}', isSecret: true },
            { name: 'X-Client', value: 'vscode' },
          ],
        },
      ],
    });
    expect(json).toEqual({
      servers: {
        [NAME]: {
          type: 'http',
          url: `https://${input('tenant')}.files.example.com/sse`,
          headers: { Authorization: `Bearer ${input('token')}`, 'X-Client': 'vscode' },
        },
      },
      inputs: [
        { id: 'token', type: 'promptString', description: '', password: true },
        { id: 'tenant', type: 'promptString', description: 'Your tenant', password: false, default: 'acme' },
      ],
    });
  });

  it('never writes a secret value or default the server.json carries: it asks for it', () => {
    const json = mcpJsonFor(
      withPackage({
        registryType: 'npm',
        identifier: '@example/files',
        environmentVariables: [
          { name: 'API_TOKEN', isSecret: true, value: 'sk-live-123', default: 'sk-test-456' },
        ],
        packageArguments: [{ type: 'named', name: '--key', isSecret: true, value: 'hunter2' }],
      }),
    );
    const text = JSON.stringify(json);
    for (const secret of ['sk-live-123', 'sk-test-456', 'hunter2']) expect(text).not.toContain(secret);
    expect(json?.inputs).toEqual([
      { id: 'API_TOKEN', type: 'promptString', description: '', password: true },
      { id: 'key', type: 'promptString', description: '', password: true },
    ]);
  });

  it('has nothing to write for an MCP bundle, which VS Code unpacks itself, or a version with neither', () => {
    expect(
      mcpJsonFor(withPackage({ registryType: 'mcpb', identifier: 'https://example.com/files.mcpb' })),
    ).toBe(undefined);
    expect(mcpJsonFor({ name: NAME, description: 'Files', version: '1.2.0' })).toBeUndefined();
  });
});
