import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseSkill, expertBody, publish as publishExpert, uniqueName } from '../registry/helpers.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { enc, npmServer, publish, remoteServer, serverName } from './helpers.js';

// The links between the catalog and the Experts (docs/mcp-registry.md "Who uses a server"): a server's users
// and the catalog entry of each skill of an Expert, matched as the rule "skills come from the catalog" does.

let server: TestServer;
let org: TestOrganization;
let other: TestOrganization;
beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server);
  other = await createOrganization(server);
});
afterAll(() => server.close());

/** A server whose one npm package is unique to the test, in `versions`. */
async function publishTool(versions: string[]) {
  const name = serverName('tool');
  const identifier = `@example/tool-${randomBytes(3).toString('hex')}`;
  for (const version of versions) {
    const body = npmServer(name, version);
    body.packages[0]!.identifier = identifier;
    await publish(server, org, body);
  }
  return { name, identifier };
}

async function publishWithSkills(key: string, skills: Record<string, unknown>, version = '1.0.0') {
  const name = uniqueName('catalog-user');
  const res = await publishExpert(
    server,
    key,
    expertBody(name, version, { skills: { '@service/base': baseSkill, ...skills } as never }),
  );
  expect(res.status, res.text).toBe(200);
  return name;
}

type Users = { data: Array<{ name: string; version: string; skills: string[]; serverVersions: string[] }> };
type Entries = { data: Array<{ skill: string; server: { name: string; version: string; status: string } }> };

describe('who uses a catalog server', () => {
  it("lists the organization's Experts whose skills run one of its versions' packages or remotes, exactly", async () => {
    const tool = await publishTool(['1.0.0', '2.0.0']);
    const remote = serverName('remote');
    await publish(server, org, remoteServer(remote, '1.0.0'));
    const stdio = await publishWithSkills(org.ownerKey, {
      tool: { type: 'mcpStdioSkill', command: 'npx', args: ['-y', `${tool.identifier}@1.0.0`] },
      search: { type: 'mcpSseSkill', endpoint: 'https://mcp.example.com/mcp' },
    });
    // Another version of the package than the catalog lists: not a user.
    await publishWithSkills(org.ownerKey, {
      tool: { type: 'mcpStdioSkill', command: 'npx', packageName: `${tool.identifier}@9.9.9` },
    });
    // Another organization's Expert running the same package: not this catalog's user.
    await publishWithSkills(other.ownerKey, {
      tool: { type: 'mcpStdioSkill', command: 'npx', packageName: `${tool.identifier}@1.0.0` },
    });

    const users = await server.request<Users>('GET', `/api/v1/mcp/servers/${enc(tool.name)}/experts`, {
      key: org.ownerKey,
    });
    expect(users.status, users.text).toBe(200);
    expect(users.body.data).toEqual([
      { name: stdio, version: '1.0.0', skills: ['tool'], serverVersions: ['1.0.0'] },
    ]);
    const remoteUsers = await server.request<Users>('GET', `/api/v1/mcp/servers/${enc(remote)}/experts`, {
      key: org.ownerKey,
    });
    expect(remoteUsers.body.data).toEqual([
      { name: stdio, version: '1.0.0', skills: ['search'], serverVersions: ['1.0.0'] },
    ]);

    const entries = await server.request<Entries>(
      'GET',
      `/api/v1/mcp/skills?expert=${enc(stdio)}&version=1.0.0`,
      { key: org.ownerKey },
    );
    expect(entries.status, entries.text).toBe(200);
    expect(entries.body.data).toEqual([
      { skill: 'tool', server: { name: tool.name, version: '1.0.0', status: 'active', isLatest: false } },
      { skill: 'search', server: { name: remote, version: '1.0.0', status: 'active', isLatest: true } },
    ]);
  });

  it("answers 404 for a server the catalog does not hold, and shows nothing of another organization's", async () => {
    const tool = await publishTool(['1.0.0']);
    const mine = await publishWithSkills(org.ownerKey, {
      tool: { type: 'mcpStdioSkill', command: 'npx', packageName: `${tool.identifier}@1.0.0` },
    });
    const absent = await server.request('GET', `/api/v1/mcp/servers/${enc(tool.name)}/experts`, {
      key: other.ownerKey,
    });
    expect(absent.status, absent.text).toBe(404);
    expect(absent.body).toMatchObject({ error: { code: 'not_found' } });
    const theirs = await server.request<Entries>(
      'GET',
      `/api/v1/mcp/skills?expert=${enc(mine)}&version=1.0.0`,
      { key: other.ownerKey },
    );
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.data).toEqual([]);
    const anonymous = await server.request('GET', `/api/v1/mcp/servers/${enc(tool.name)}/experts`);
    expect(anonymous.status).toBe(401);
  });
});
