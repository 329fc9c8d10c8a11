import { describe, expect, it } from 'vitest';
import type { ServerJson } from '../../src/modules/mcp-catalog/server-json.schemas.js';
import { wideningReasons } from '../../src/modules/mcp-catalog/widening.js';
import { npmServer, remoteServer } from './helpers.js';

// What makes a new catalog version wait for approval (docs/mcp-registry.md, "Approval"): whatever it lets an
// IDE or a skill reach that the latest listed version did not.

const NAME = 'com.example/widening';
const as = (body: unknown) => body as ServerJson;

describe('wideningReasons', () => {
  it('names everything a first version reaches', () => {
    expect(wideningReasons(as(npmServer(NAME)), undefined)).toEqual([
      'new npm package @example/tool',
      'new secret variable EXAMPLE_TOKEN',
    ]);
    expect(wideningReasons(as(remoteServer(NAME, '1.0.0')), undefined)).toEqual([
      'new remote host mcp.example.com',
      'new secret header Authorization',
    ]);
  });

  it('is empty for a new version of the same package with the same secrets', () => {
    expect(wideningReasons(as(npmServer(NAME, '1.1.0')), as(npmServer(NAME, '1.0.0')))).toEqual([]);
  });

  it('counts a secret header added to a remote, or to a package run over HTTP, as a secret handed over', () => {
    const remote = remoteServer(NAME, '1.0.0');
    const withKey = {
      ...remote,
      version: '1.1.0',
      remotes: [
        {
          ...remote.remotes[0],
          headers: [...remote.remotes[0]!.headers, { name: 'X-Api-Key', value: '{key}', isSecret: true }],
        },
      ],
    };
    expect(wideningReasons(as(withKey), as(remote))).toEqual(['new secret header X-Api-Key']);

    const httpPackage = npmServer(NAME, '1.0.0');
    const overHttp = (headers: unknown[]) => ({
      ...httpPackage,
      packages: [
        {
          ...httpPackage.packages[0],
          transport: { type: 'streamable-http', url: 'http://127.0.0.1:{port}/mcp', headers },
        },
      ],
    });
    const before = overHttp([{ name: 'X-Trace', value: 'on' }]);
    const after = overHttp([
      { name: 'X-Trace', value: 'on' },
      { name: 'Authorization', isSecret: true },
    ]);
    expect(wideningReasons(as(after), as(before))).toEqual(['new secret header Authorization']);
    // A header that is not secret widens nothing.
    expect(wideningReasons(as(before), as(overHttp([])))).toEqual([]);
  });
});
