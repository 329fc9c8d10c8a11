import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { enc, npmServer, publish, remoteServer, serverName, setAccess } from './helpers.js';

type Meta = Record<
  string,
  { id?: string; isLatest?: boolean; approval?: { status: string; reasons: string[] } }
>;
type Entry = { server: { name: string; version: string }; _meta: Meta };
type List = { servers: Entry[]; metadata: { count: number } };
type Approval = { id: string; name: string; version: string; status: string; reasons: string[] };
const OFFICIAL = 'io.modelcontextprotocol.registry/official';
const CADRE = 'dev.cadre/catalog';

let server: TestServer;
let org: TestOrganization;
let adminKey: string;
let memberKey: string;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server);
  await setAccess(server, org, 'public');
  adminKey = (await createKey(server, org, await addMember(server, org, 'admin'))).key;
  memberKey = (await createKey(server, org, await addMember(server, org, 'member'))).key;
  const policy = await server.request('PUT', '/api/v1/organization/publish-policy', {
    key: org.ownerKey,
    body: { approvalRequiredForWidening: true },
  });
  expect(policy.status, policy.text).toBe(200);
});
afterAll(() => server.close());

const read = <T = List>(slug: string, path: string) => server.request<T>('GET', `/mcp/${slug}/v0.1${path}`);
const published = async (body: unknown) => (await publish(server, org, body)).body as { data: Entry };
const decide = (key: string, id: string, decision: 'approve' | 'reject') =>
  server.request<{ data: { approval: Approval; movedLatest: boolean } }>(
    'POST',
    `/api/v1/mcp/approvals/${id}/${decision}`,
    { key },
  );
const pending = async (key = org.ownerKey) =>
  (await server.request<{ data: Approval[] }>('GET', '/api/v1/mcp/approvals', { key })).body.data;

describe('the approval gate of the MCP catalog', () => {
  it("holds a server's first version off every v0.1 read until another owner or admin approves it", async () => {
    const name = serverName();
    const answer = await published(npmServer(name, '1.0.0'));
    const id = answer.data._meta[CADRE]?.id as string;
    expect(answer.data._meta[OFFICIAL]?.isLatest).toBe(false);
    expect(answer.data._meta[CADRE]?.approval).toEqual({
      status: 'pending',
      reasons: ['new npm package @example/tool', 'new secret variable EXAMPLE_TOKEN'],
      previousVersion: null,
    });

    // The v0.1 face never shows it: not in the list, the search, the versions, nor by its version.
    const list = await read(org.slug, '/servers?limit=100');
    expect(list.body.servers.map((entry) => entry.server.name)).not.toContain(name);
    const searched = await read(org.slug, `/servers?search=${enc(name)}`);
    expect(searched.body.servers).toEqual([]);
    expect((await read(org.slug, `/servers/${enc(name)}/versions`)).status).toBe(404);
    expect((await read(org.slug, `/servers/${enc(name)}/versions/1.0.0`)).status).toBe(404);
    expect((await read(org.slug, `/servers/${enc(name)}/versions/latest`)).status).toBe(404);

    expect((await pending()).find((approval) => approval.id === id)).toMatchObject({
      name,
      version: '1.0.0',
      status: 'pending',
    });
    // The publisher cannot decide on their own version; a member without experts:approve neither.
    const own = await decide(org.ownerKey, id, 'approve');
    expect(own.status, own.text).toBe(403);
    expect(own.text).toContain('another owner or admin');
    expect((await decide(memberKey, id, 'approve')).status).toBe(403);

    const approved = await decide(adminKey, id, 'approve');
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.data).toMatchObject({ movedLatest: true, approval: { status: 'approved' } });
    const latest = await read<Entry>(org.slug, `/servers/${enc(name)}/versions/latest`);
    expect(latest.status, latest.text).toBe(200);
    expect(latest.body.server.version).toBe('1.0.0');
    expect(latest.body._meta[CADRE]?.approval).toBeUndefined();

    // A decision is final.
    const again = await decide(adminKey, id, 'reject');
    expect(again.status, again.text).toBe(409);
    expect((await pending()).map((approval) => approval.id)).not.toContain(id);
  });

  it('keeps latest on the previous version while a widening one waits, and a refused one never joins', async () => {
    const name = serverName();
    const first = await published(npmServer(name, '1.0.0'));
    expect((await decide(adminKey, first.data._meta[CADRE]?.id as string, 'approve')).status).toBe(200);
    // A new version of the same package with the same secret widens nothing: it is listed and latest at once.
    const same = await published(npmServer(name, '1.1.0'));
    expect(same.data._meta[CADRE]?.approval).toBeUndefined();
    expect(same.data._meta[OFFICIAL]?.isLatest).toBe(true);

    // A new remote host (with a secret header) widens access: 2.0.0 waits, latest stays on 1.1.0.
    const wider = await published({
      ...npmServer(name, '2.0.0'),
      remotes: remoteServer(name, '2.0.0').remotes,
    });
    const widerId = wider.data._meta[CADRE]?.id as string;
    expect(wider.data._meta[CADRE]?.approval?.reasons).toEqual([
      'new remote host mcp.example.com',
      'new secret header Authorization',
    ]);
    const latest = await read<Entry>(org.slug, `/servers/${enc(name)}/versions/latest`);
    expect(latest.body.server.version).toBe('1.1.0');
    const latestList = await read(org.slug, `/servers?version=latest&search=${enc(name)}`);
    expect(latestList.body.servers.map((entry) => entry.server.version)).toEqual(['1.1.0']);
    const versions = await read(org.slug, `/servers/${enc(name)}/versions`);
    expect(versions.body.servers.map((entry) => entry.server.version)).toEqual(['1.1.0', '1.0.0']);
    // Its version number is taken all the same: versions are immutable.
    const reused = await server.request('POST', '/api/v1/mcp/servers', {
      key: org.ownerKey,
      body: npmServer(name, '2.0.0'),
    });
    expect(reused.status).toBe(409);

    const refused = await decide(adminKey, widerId, 'reject');
    expect(refused.status, refused.text).toBe(200);
    expect(refused.body.data).toMatchObject({ movedLatest: false, approval: { status: 'rejected' } });
    expect((await read(org.slug, `/servers/${enc(name)}/versions/2.0.0`)).status).toBe(404);
    expect((await read<Entry>(org.slug, `/servers/${enc(name)}/versions/latest`)).body.server.version).toBe(
      '1.1.0',
    );
    const rejected = await server.request<{ data: Approval[] }>(
      'GET',
      '/api/v1/mcp/approvals?status=rejected',
      {
        key: memberKey,
      },
    );
    expect(rejected.body.data.map((approval) => approval.id)).toContain(widerId);
  });

  it("another organization can neither see nor decide on an organization's waiting versions", async () => {
    const other = await createOrganization(server);
    const otherAdmin = (await createKey(server, other, await addMember(server, other, 'admin'))).key;
    const name = serverName();
    const answer = await published(npmServer(name, '1.0.0'));
    const id = answer.data._meta[CADRE]?.id as string;
    expect((await pending(other.ownerKey)).map((approval) => approval.id)).not.toContain(id);
    const foreign = await decide(otherAdmin, id, 'approve');
    expect(foreign.status, foreign.text).toBe(404);
    expect((await pending()).map((approval) => approval.id)).toContain(id);
  });

  it('tells reviewers through events, and lets everything through while the rule is off', async () => {
    const name = serverName();
    const answer = await published(remoteServer(name, '1.0.0'));
    const id = answer.data._meta[CADRE]?.id as string;
    await decide(adminKey, id, 'approve');
    const events = await server.request<{ data: Array<{ type: string; data: Record<string, unknown> }> }>(
      'GET',
      '/api/v1/events?limit=100',
      { key: org.ownerKey },
    );
    expect(events.status, events.text).toBe(200);
    const ofServer = events.body.data.filter(
      (event) => (event.data.server as { name?: string } | undefined)?.name === name,
    );
    expect(ofServer.map((event) => event.type).sort()).toEqual([
      'mcp_server.approved',
      'mcp_server.awaiting_approval',
      'mcp_server.published',
    ]);
    expect(ofServer.find((event) => event.type === 'mcp_server.awaiting_approval')?.data).toMatchObject({
      approval: { id, reasons: ['new remote host mcp.example.com', 'new secret header Authorization'] },
    });

    const off = await createOrganization(server);
    const openName = serverName();
    const open = await publish(server, off, npmServer(openName, '1.0.0'));
    const body = open.body as { data: Entry };
    expect(body.data._meta[CADRE]?.approval).toBeUndefined();
    expect(body.data._meta[OFFICIAL]?.isLatest).toBe(true);
  });
});
