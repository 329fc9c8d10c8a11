import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseSkill, expertBody, publish as publishExpert, uniqueName } from '../registry/helpers.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { enc, npmServer, publish, remoteServer, serverName } from './helpers.js';

// The publish-policy rule "Experts' skills come from the catalog" (docs/registry.md "Skills from the MCP
// catalog"), over real HTTP on both registry faces.

let server: TestServer;
let org: TestOrganization;
beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server);
  const res = await server.request('PUT', '/api/v1/organization/publish-policy', {
    key: org.ownerKey,
    body: { skillsFromCatalog: true },
  });
  expect(res.status, res.text).toBe(200);
});
afterAll(() => server.close());

const withSkills = (skills: Record<string, unknown>) =>
  expertBody(uniqueName('from-catalog'), '1.0.0', {
    skills: { '@service/base': baseSkill, ...skills } as never,
  });
const reasonOf = (res: { body: unknown }) => (res.body as { reason: string }).reason;

describe('the rule "skills come from the catalog"', () => {
  it('refuses a package the catalog does not list, on both registry faces, naming the skill, the rule and what to add', async () => {
    const body = withSkills({
      tool: { type: 'mcpStdioSkill', command: 'npx', packageName: '@example/tool@7.0.0' },
    });
    const res = await publishExpert(server, org.ownerKey, body);
    expect(res.status, res.text).toBe(422);
    expect(reasonOf(res)).toBe(
      "The organization's publish policy refuses this version (1 rule broken): skills.tool: npm package " +
        "@example/tool 7.0.0 is not in an active server version of the organization's MCP catalog: publish a " +
        'server whose packages list it (cadre mcp publish) [skillsFromCatalog]',
    );
    const perstack = await server.request('POST', '/api/registry/v1/experts', { key: org.ownerKey, body });
    expect(perstack.status, perstack.text).toBe(422);
    expect(reasonOf(perstack)).toBe(reasonOf(res));

    // Once the catalog lists the package (an active version of a server), the same Expert publishes.
    await publish(server, org, npmServer(serverName('tool'), '7.0.0'));
    const again = await publishExpert(server, org.ownerKey, body);
    expect(again.status, again.text).toBe(200);
  });

  it('matches an SSE endpoint against the remotes of active versions only', async () => {
    const name = serverName('remote');
    await publish(server, org, remoteServer(name, '1.0.0'));
    const sse = (endpoint: string) => withSkills({ search: { type: 'mcpSseSkill', endpoint } });
    const listed = await publishExpert(server, org.ownerKey, sse('https://mcp.example.com/mcp'));
    expect(listed.status, listed.text).toBe(200);
    const other = await publishExpert(server, org.ownerKey, sse('https://other.example.com/mcp'));
    expect(other.status).toBe(422);
    expect(reasonOf(other)).toContain(
      'skills.search.endpoint: endpoint https://other.example.com/mcp is not in an active server version',
    );

    // Deprecated, the version no longer vouches for its endpoint.
    const deprecate = await server.request(
      'PATCH',
      `/api/v1/mcp/servers/${enc(name)}/versions/1.0.0/status`,
      {
        key: org.ownerKey,
        body: { status: 'deprecated', statusMessage: 'moved' },
      },
    );
    expect(deprecate.status, deprecate.text).toBe(200);
    const after = await publishExpert(server, org.ownerKey, sse('https://mcp.example.com/mcp'));
    expect(after.status).toBe(422);
    expect(reasonOf(after)).toContain('[skillsFromCatalog]');
  });

  it('refuses what no catalog can list (a command without a package, a package without an exact version); exempts the base skill', async () => {
    const res = await publishExpert(
      server,
      org.ownerKey,
      withSkills({
        shell: { type: 'mcpStdioSkill', command: 'bash', args: ['serve.sh'] },
        loose: { type: 'mcpStdioSkill', command: 'uvx', args: ['mcp-files'] },
      }),
    );
    expect(res.status, res.text).toBe(422);
    expect(reasonOf(res)).toContain('(2 rules broken)');
    expect(reasonOf(res)).toContain('skills.shell.command: "bash" runs no npx or uvx package');
    expect(reasonOf(res)).toContain('skills.loose: "mcp-files" names no exact version');
    expect(reasonOf(res)).not.toContain('@service/base');
  });

  it("is off by default: another organization's Experts publish any skill", async () => {
    const open = await createOrganization(server);
    const body = withSkills({
      tool: { type: 'mcpStdioSkill', command: 'npx', packageName: '@example/tool@9.9.9' },
    });
    const res = await publishExpert(server, open.ownerKey, body);
    expect(res.status, res.text).toBe(200);
  });
});
