import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../support/cli-harness.js';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { npmServer, serverName } from './helpers.js';

let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server);
});
afterAll(() => server.close());

const cadre = (args: string[], cwd = process.cwd()) =>
  runCli(args, { cwd, env: { CADRE_URL: server.url, CADRE_API_KEY: org.ownerKey } });

describe('cadre mcp', () => {
  it('publishes a server.json, lists the catalog, deprecates and deletes a version', async () => {
    const name = serverName('cli');
    const dir = tempProject({
      'server.json': JSON.stringify(npmServer(name, '1.0.0')),
      'next.json': JSON.stringify(npmServer(name, '1.1.0')),
      'broken.json': JSON.stringify({ ...npmServer(name, '2.0.0'), description: '' }),
    });
    const published = await cadre(['mcp', 'publish', 'server.json'], dir);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toContain(`published ${name} 1.0.0 (latest)`);
    expect((await cadre(['mcp', 'publish', 'next.json'], dir)).code).toBe(0);

    const broken = await cadre(['mcp', 'publish', 'broken.json'], dir);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/422 validation_failed.*description: /);
    const again = await cadre(['mcp', 'publish', 'server.json'], dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/409 conflict.*immutable/);

    const listed = await cadre(['mcp', 'list', '--search', name]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${name.replace('.', '\\.')}\\s+1\\.1\\.0\\s+active`));
    expect(listed.stderr).toContain(`${server.url}/mcp/${org.slug}`);

    const deprecated = await cadre(['mcp', 'status', name, '1.1.0', 'deprecated', '--message', 'Use 2.x']);
    expect(deprecated.code, deprecated.stderr).toBe(0);
    expect(deprecated.stdout).toContain(`${name} 1.1.0 is deprecated (latest)`);
    const deleted = await cadre(['mcp', 'status', name, '1.1.0', 'deleted']);
    expect(deleted.stdout).toContain(`${name} 1.1.0 is deleted`);
    const json = await cadre(['mcp', 'list', '--search', name, '--json']);
    const servers = JSON.parse(json.stdout) as Array<{ server: { version: string } }>;
    expect(servers.map((entry) => entry.server.version)).toEqual(['1.0.0']);

    const wrong = await cadre(['mcp', 'status', name, '1.0.0', 'gone']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/must be one of active, deprecated, deleted/);
  });

  it('shows a version waiting for approval, lists it, and lets another admin approve or refuse it', async () => {
    const gated = await createOrganization(server);
    const adminKey = (await createKey(server, gated, await addMember(server, gated, 'admin'))).key;
    const policy = await server.request('PUT', '/api/v1/organization/publish-policy', {
      key: gated.ownerKey,
      body: { approvalRequiredForWidening: true },
    });
    expect(policy.status, policy.text).toBe(200);
    const as =
      (key: string) =>
      (args: string[], cwd = process.cwd()) =>
        runCli(args, { cwd, env: { CADRE_URL: server.url, CADRE_API_KEY: key } });
    const owner = as(gated.ownerKey);
    const admin = as(adminKey);
    const name = serverName('gated');
    const dir = tempProject({
      'one.json': JSON.stringify(npmServer(name, '1.0.0')),
      'two.json': JSON.stringify(
        npmServer(name, '2.0.0', { remotes: [{ type: 'sse', url: 'https://new.example.com/sse' }] }),
      ),
    });
    const published = await owner(['mcp', 'publish', 'one.json'], dir);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toMatch(
      /waits for approval by another owner or admin \(cadre mcp approve \S+\): new npm package @example\/tool; new secret variable EXAMPLE_TOKEN/,
    );
    const listed = await admin(['mcp', 'approvals', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const [waiting] = (JSON.parse(listed.stdout) as Array<{ id: string; name: string }>).filter(
      (approval) => approval.name === name,
    );
    expect(waiting).toBeDefined();
    const table = await admin(['mcp', 'approvals']);
    expect(table.stdout).toContain(waiting!.id);
    expect(table.stdout).toContain('WIDENS ACCESS');

    const own = await owner(['mcp', 'approve', waiting!.id]);
    expect(own.code).toBe(1);
    expect(own.stderr).toMatch(/403 forbidden.*another owner or admin/);
    const approved = await admin(['mcp', 'approve', waiting!.id]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`${name} 1.0.0 approved; it is now latest`);

    expect((await owner(['mcp', 'publish', 'two.json'], dir)).stdout).toContain(
      'new remote host new.example.com',
    );
    const second = (
      JSON.parse((await admin(['mcp', 'approvals', '--json'])).stdout) as Array<{ id: string; name: string }>
    ).find((approval) => approval.name === name);
    const refused = await admin(['mcp', 'reject', second!.id]);
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stdout).toContain(`${name} 2.0.0 refused: it never joins the catalog`);
    const bad = await admin(['mcp', 'approvals', '--status', 'maybe']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--status must be one of pending, approved, rejected');
  });
});
