import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempProject } from './support/cli-harness.js';
import { createOrganization, type TestOrganization } from './support/fixtures.js';
import { ROOT } from './support/process.js';
import { startServer, type TestServer } from './support/server.js';

// The real `cadre` binary against a real Cadre server: what a user runs after `npm ci`.
const exec = promisify(execFile);
let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'team', 'acme');
});
afterAll(() => server.close());

async function cadre(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [`${ROOT}dist/cli/main.js`, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', CADRE_URL: server.url, CADRE_API_KEY: org.ownerKey, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const CONFIG = `
model = "claude-sonnet-4-5"

[experts."@acme/writer"]
version = "1.0.0"
description = "Writes the report"
instruction = "Write clearly. Ask the researcher for sources."
delegates = ["@acme/researcher@2.0.0"]
tags = ["stable"]

[experts."@acme/researcher"]
version = "2.0.0"
description = "Finds sources"
instruction = "Find primary sources."

[experts."@acme/researcher".skills.search]
type = "mcpSseSkill"
endpoint = "https://search.example.test/sse"
`;

describe('cadre publish and cadre experts against a real registry', () => {
  it("another organization's key on a taken name fails with a clear message, never 'unchanged'", async () => {
    // Unscoped names belong to personal accounts, first come first served.
    const mine = await createOrganization(server, 'personal', 'ada');
    const other = await createOrganization(server, 'personal', 'grace');
    const dir = tempProject({
      'cadre.toml': '[experts.summarizer]\nversion = "1.0.0"\ninstruction = "Sum up."\n',
    });
    const first = await cadre(['publish'], dir, { CADRE_API_KEY: mine.ownerKey });
    expect(first.code, first.stderr).toBe(0);
    const run = await cadre(['publish'], dir, { CADRE_API_KEY: other.ownerKey });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).not.toContain('unchanged');
    expect(run.stderr).toContain('error: summarizer belongs to another organization (ada)');
    expect(run.stderr).toContain('hint: choose another name');
    // The owner's own run still reads as unchanged.
    const again = await cadre(['publish'], dir, { CADRE_API_KEY: mine.ownerKey });
    expect(again.stdout).toContain('unchanged summarizer@1.0.0');
  });

  it('publishes a multi-Expert file delegated-to first, then reads it back through the registry', async () => {
    const dir = tempProject({ 'cadre.toml': CONFIG });
    const run = await cadre(['publish'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.indexOf('@acme/researcher')).toBeLessThan(run.stdout.indexOf('@acme/writer'));

    const writer = await server.request<{ data: { expert: Record<string, unknown> } }>(
      'GET',
      `/registry/experts/${encodeURIComponent('@acme/writer')}`,
    );
    expect(writer.status).toBe(200);
    expect(writer.body.data.expert).toMatchObject({
      key: '@acme/writer@1.0.0',
      delegates: ['@acme/researcher@2.0.0'],
      tags: expect.arrayContaining(['latest', 'stable']),
      status: 'available',
      minRuntimeVersion: 'v1.0',
    });
    expect(Object.keys(writer.body.data.expert.skills as object)).toContain('@service/base');
    const researcher = await server.request<{
      data: { expert: { skills: Record<string, { type: string }> } };
    }>('GET', '/registry/experts/@acme/researcher@2.0.0');
    expect(researcher.body.data.expert.skills.search?.type).toBe('mcpSseSkill');

    // Publishing the same file again changes nothing and says so.
    const again = await cadre(['publish'], dir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('unchanged');

    // A wrong key never reads as success: the 401's message, exit 1, nothing reported unchanged.
    const wrongKey = await cadre(['publish'], dir, { CADRE_API_KEY: 'cadre_wrong' });
    const answer = await server.request<{ error: { message: string } }>('GET', '/api/v1/billing/plans', {
      key: 'cadre_wrong',
    });
    expect(answer.status).toBe(401);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout).toBe('');
    expect(wrongKey.stderr).toContain(`401 unauthorized: ${answer.body.error.message}`);
  });

  it('publishes a definition written for Perstack\'s tools as it is: "@perstack/base" alone, no "@service/base" added', async () => {
    const dir = tempProject({
      'cadre.toml': [
        '[experts."@acme/scout"]',
        'instruction = "Scout."',
        '[experts."@acme/scout".skills."@perstack/base"]',
        'type = "mcpStdioSkill"',
        'command = "npx"',
        'packageName = "@perstack/base"',
        '',
      ].join('\n'),
    });
    expect((await cadre(['config', 'validate'], dir)).code).toBe(0);
    const run = await cadre(['publish'], dir);
    expect(run.code, run.stderr).toBe(0);
    const scout = await server.request<{ data: { expert: { minRuntimeVersion: string; skills: object } } }>(
      'GET',
      '/registry/experts/@acme/scout@1.0.0',
    );
    expect(scout.body.data.expert).toMatchObject({
      minRuntimeVersion: 'v1.0',
      skills: { '@perstack/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@perstack/base' } },
    });
    expect(Object.keys(scout.body.data.expert.skills)).toEqual(['@perstack/base']);
    // Published again, it is the same definition: unchanged, not refused.
    expect((await cadre(['publish'], dir)).stdout).toContain('unchanged @acme/scout@1.0.0');
  });

  it('lists, shows, tags, deprecates and deletes through the registry; registry errors exit 1 with their reason', async () => {
    const dir = tempProject({
      'cadre.toml': CONFIG.replaceAll('1.0.0', '1.1.0').replaceAll('2.0.0', '2.1.0'),
    });
    expect((await cadre(['publish'], dir)).code).toBe(0);

    const list = await cadre(['experts', 'list'], dir);
    expect(list.stdout).toContain('@acme/writer');
    const versions = await cadre(['experts', 'versions', '@acme/writer'], dir);
    expect(versions.stdout).toContain('1.0.0');
    expect(versions.stdout).toContain('1.1.0');
    expect((await cadre(['experts', 'tag', '@acme/writer@1.0.0', 'legacy'], dir)).code).toBe(0);
    expect((await cadre(['experts', 'deprecate', '@acme/writer@1.0.0'], dir)).code).toBe(0);
    const info = await server.request<{ data: { expert: { status: string; tags: string[] } } }>(
      'GET',
      '/registry/experts/@acme/writer@legacy',
    );
    expect(info.body.data.expert).toMatchObject({ status: 'deprecated', tags: ['legacy'] });

    // The researcher is delegated to by the writer: the registry refuses, the CLI shows why and exits 1.
    const blocked = await cadre(['experts', 'delete', '@acme/researcher@2.1.0', '--yes'], dir);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toMatch(/400/);
    expect((await cadre(['experts', 'delete', '@acme/writer@1.1.0', '--yes'], dir)).code).toBe(0);
    expect((await cadre(['experts', 'delete', '@acme/researcher@2.1.0', '--yes'], dir)).code).toBe(0);
  });
});
