import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { enc, npmServer, publish, remoteServer, serverName, setAccess } from './helpers.js';

type Official = { status: string; isLatest: boolean; statusMessage?: string; updatedAt: string };
type Entry = { server: { name: string; version: string }; _meta: Record<string, Official> };
type List = { servers: Entry[]; metadata: { count: number; nextCursor?: string } };
const OFFICIAL = 'io.modelcontextprotocol.registry/official';
const official = (entry: Entry) => entry._meta[OFFICIAL]!;

let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server);
  await setAccess(server, org, 'public');
});
afterAll(() => server.close());

const read = <T = List>(path: string, key?: string) =>
  server.request<T>('GET', `/mcp/${org.slug}/v0.1${path}`, key ? { key } : {});

describe('publishing', () => {
  it('names every problem of a server.json by its path', async () => {
    const res = await server.request<{
      error: { code: string; details: Array<{ path: string; message: string }> };
    }>('POST', '/api/v1/mcp/servers', {
      key: org.ownerKey,
      body: {
        name: 'no-slash',
        description: 'x'.repeat(101),
        version: '^1.0.0',
        packages: [
          {
            registryType: 'npm',
            identifier: '@a/b',
            version: 'latest',
            transport: { type: 'stdio' },
            extra: 1,
          },
        ],
        remotes: [{ type: 'sse', url: 'ftp://example.com' }],
      },
    });
    expect(res.status, res.text).toBe(422);
    const paths = res.body.error.details.map((detail) => detail.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'name',
        'description',
        'version',
        'packages.0.version',
        'packages.0',
        'remotes.0.url',
      ]),
    );
    const version = res.body.error.details.find((detail) => detail.path === 'version');
    expect(version?.message).toMatch(/specific version, not a range/);
  });

  it("answers the registry's own _meta on v0.1 reads, and Cadre's id and organization on management answers", async () => {
    const name = serverName('meta');
    const published = await server.request<{ data: { _meta: Record<string, unknown> } }>(
      'POST',
      '/api/v1/mcp/servers',
      { key: org.ownerKey, body: npmServer(name, '1.0.0') },
    );
    expect(published.status, published.text).toBe(201);
    expect(published.body.data._meta['dev.cadre/catalog']).toEqual({
      id: expect.any(String),
      organization: org.slug,
    });
    const answers = [
      (await read(`/servers?search=${encodeURIComponent(name)}`)).body.servers,
      (await read(`/servers/${enc(name)}/versions`)).body.servers,
      [(await read<Entry>(`/servers/${enc(name)}/versions/latest`)).body],
    ];
    for (const entries of answers) {
      expect(entries).toHaveLength(1);
      expect(Object.keys(entries[0]!._meta)).toEqual([OFFICIAL]);
    }
  });

  it('keeps versions immutable and moves latest by semver, not by publish order', async () => {
    const name = serverName();
    await publish(server, org, npmServer(name, '1.10.0'));
    await publish(server, org, npmServer(name, '1.9.0'));
    const again = await server.request('POST', '/api/v1/mcp/servers', {
      key: org.ownerKey,
      body: npmServer(name, '1.9.0', { description: 'changed' }),
    });
    expect(again.status, again.text).toBe(409);
    const latest = await read<Entry>(`/servers/${enc(name)}/versions/latest`);
    expect(latest.status).toBe(200);
    expect(latest.body.server.version).toBe('1.10.0');
    const versions = await read(`/servers/${enc(name)}/versions`);
    expect(versions.body.servers.map((entry) => [entry.server.version, official(entry).isLatest])).toEqual([
      ['1.9.0', false],
      ['1.10.0', true],
    ]);
    const exact = await read<Entry>(`/servers/${enc(name)}/versions/1.9.0`);
    expect(exact.body.server.version).toBe('1.9.0');
    expect((await read(`/servers/${enc(name)}/versions/2.0.0`)).status).toBe(404);
  });

  it('deprecates with a message, deletes as a status that latest moves off, and mirrors see it', async () => {
    const name = serverName();
    await publish(server, org, remoteServer(name, '1.0.0'));
    await publish(server, org, remoteServer(name, '2.0.0'));
    const before = new Date().toISOString();
    const status = (version: string, body: unknown) =>
      server.request<{ data: Entry }>(
        'PATCH',
        `/api/v1/mcp/servers/${enc(name)}/versions/${version}/status`,
        {
          key: org.ownerKey,
          body,
        },
      );
    const deprecated = await status('1.0.0', { status: 'deprecated', statusMessage: 'Use 2.0.0' });
    expect(deprecated.status, deprecated.text).toBe(200);
    expect(official(deprecated.body.data)).toMatchObject({
      status: 'deprecated',
      statusMessage: 'Use 2.0.0',
    });
    expect((await status('1.0.0', { status: 'deprecated', statusMessage: 'Use 2.0.0' })).status).toBe(400);

    const deleted = await status('2.0.0', { status: 'deleted' });
    expect(official(deleted.body.data)).toMatchObject({ status: 'deleted', isLatest: false });
    const latest = await read<Entry>(`/servers/${enc(name)}/versions/latest`);
    expect(latest.body.server.version).toBe('1.0.0');
    expect((await read(`/servers/${enc(name)}/versions/2.0.0`)).status).toBe(404);
    const withDeleted = await read<Entry>(`/servers/${enc(name)}/versions/2.0.0?include_deleted=true`);
    expect(official(withDeleted.body)).toMatchObject({ status: 'deleted' });

    const listed = await read(`/servers?search=${enc(name)}`);
    expect(listed.body.servers.map((entry) => entry.server.version)).toEqual(['1.0.0']);
    const synced = await read(`/servers?updated_since=${enc(before)}&search=${enc(name)}`);
    expect(synced.body.servers.map((entry) => [entry.server.version, official(entry).status])).toEqual([
      ['1.0.0', 'deprecated'],
      ['2.0.0', 'deleted'],
    ]);
    const missing = await server.request('PATCH', `/api/v1/mcp/servers/${enc(name)}/versions/9.9.9/status`, {
      key: org.ownerKey,
      body: { status: 'deleted' },
    });
    expect(missing.status).toBe(404);
  });

  it('records each change in the audit log and as an event', async () => {
    const name = serverName('audited');
    await publish(server, org, npmServer(name, '1.0.0'));
    await server.request('PATCH', `/api/v1/mcp/servers/${enc(name)}/versions/1.0.0/status`, {
      key: org.ownerKey,
      body: { status: 'deprecated', statusMessage: 'old' },
    });
    const audit = await server.request<{ data: Array<{ action: string; target: { id: string } }> }>(
      'GET',
      `/api/v1/organizations/${org.slug}/audit-events?limit=100`,
      { key: org.ownerKey },
    );
    expect(audit.status, audit.text).toBe(200);
    const mine = audit.body.data
      .filter((event) => event.target.id === `${name}@1.0.0`)
      .map((event) => event.action);
    expect(mine.sort()).toEqual(['mcp_server.published', 'mcp_server.status_changed']);
    const events = await server.request<{ data: Array<{ type: string; data: Record<string, unknown> }> }>(
      'GET',
      '/api/v1/events?type=mcp_server.published,mcp_server.status_changed&limit=100',
      { key: org.ownerKey },
    );
    expect(events.status, events.text).toBe(200);
    const ours = events.body.data.filter((event) => (event.data.server as { name: string }).name === name);
    expect(ours.map((event) => event.type).sort()).toEqual([
      'mcp_server.published',
      'mcp_server.status_changed',
    ]);
    expect(ours.find((event) => event.type === 'mcp_server.status_changed')?.data).toMatchObject({
      from: 'active',
      to: 'deprecated',
      statusMessage: 'old',
    });
  });
});

describe('the v0.1 list', () => {
  it('pages with an opaque cursor, searches by name, lists latest versions once', async () => {
    const prefix = serverName('page').split('/')[0]!;
    for (const index of [1, 2, 3, 4, 5]) {
      await publish(server, org, npmServer(`${prefix}/server-${index}`, '1.0.0'));
      await publish(server, org, npmServer(`${prefix}/server-${index}`, '1.1.0'));
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await read(
        `/servers?version=latest&limit=2&search=${enc(prefix)}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status, page.text).toBe(200);
      expect(page.body.metadata.count).toBe(page.body.servers.length);
      seen.push(...page.body.servers.map((entry) => `${entry.server.name}@${entry.server.version}`));
      cursor = page.body.metadata.nextCursor;
      // VS Code appends the cursor to the URL as it is: it must need no encoding.
      if (cursor) expect(encodeURIComponent(cursor)).toBe(cursor);
    } while (cursor);
    expect(seen).toEqual([1, 2, 3, 4, 5].map((index) => `${prefix}/server-${index}@1.1.0`));
    const all = await read(`/servers?search=${enc(prefix.toUpperCase())}&limit=100`);
    expect(all.body.servers).toHaveLength(10);
    const exact = await read(`/servers?search=${enc(prefix)}&version=1.0.0`);
    expect(exact.body.servers.map((entry) => entry.server.version)).toEqual(Array(5).fill('1.0.0'));
  });

  it('answers a bad cursor, limit or time with 4xx in the registry shape, never a 500', async () => {
    const bad = await read<{ code: number; error: string; reason: string }>('/servers?cursor=not-ours');
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toMatch(/cursor/i);
    const limit = await read<{ code: number; error: string; reason: string }>('/servers?limit=0');
    expect(limit.status).toBe(400);
    expect(limit.body).toEqual({
      code: 400,
      error: 'Bad Request',
      reason: expect.stringContaining('query.limit'),
    });
    expect((await read('/servers?limit=101')).status).toBe(400);
    expect((await read('/servers?updated_since=yesterday')).status).toBe(400);
    expect((await read('/servers/not-a-name/versions')).status).toBe(400);
    expect((await server.request('GET', '/mcp/no-such-org/v0.1/servers')).status).toBe(404);
  });
});

describe('metrics', () => {
  it('counts catalog reads by route, under the catalog face', async () => {
    await read('/servers?limit=1');
    const metrics = await server.request('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(
      /cadre_http_request_duration_seconds_count\{[^}]*face="mcp"[^}]*route="\/mcp\/:organization\/v0\.1\/servers"[^}]*\} [1-9]/,
    );
  });
});

describe('catalog reads in /metrics', () => {
  it('counts each read by route and by where its answer came from (database, then cache)', async () => {
    const name = serverName('counted');
    await publish(server, org, npmServer(name, '1.0.0'));
    const count = async (route: string, answer: string) => {
      const text = (await server.request('GET', '/metrics')).text;
      const line = text
        .split('\n')
        .find((candidate) =>
          candidate.startsWith(`cadre_mcp_catalog_reads_total{route="${route}",answer="${answer}"}`),
        );
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const versionRoute = '/mcp/:organization/v0.1/servers/:serverName/versions/:version';
    const before = {
      database: await count(versionRoute, 'database'),
      cache: await count(versionRoute, 'cache'),
    };
    expect((await read(`/servers/${enc(name)}/versions/latest`)).status).toBe(200);
    expect((await read(`/servers/${enc(name)}/versions/latest`)).status).toBe(200);
    expect(await count(versionRoute, 'database')).toBe(before.database + 1);
    expect(await count(versionRoute, 'cache')).toBe(before.cache + 1);
    expect((await read(`/servers/${enc(name)}/versions`)).status).toBe(200);
    expect(await count('/mcp/:organization/v0.1/servers/:serverName/versions', 'database')).toBeGreaterThan(
      0,
    );
  });
});

describe('answers from the cache', () => {
  it('shows a publish and a status change at once to the next read', async () => {
    const name = serverName('fresh');
    await publish(server, org, npmServer(name, '1.0.0'));
    const latest = () => read<Entry>(`/servers/${enc(name)}/versions/latest`);
    const search = () => read(`/servers?search=${enc(name)}&version=latest`);
    expect((await latest()).body.server.version).toBe('1.0.0');
    expect((await latest()).body.server.version).toBe('1.0.0');
    expect((await search()).body.servers.map((entry) => entry.server.version)).toEqual(['1.0.0']);
    await publish(server, org, npmServer(name, '1.1.0'));
    expect((await latest()).body.server.version).toBe('1.1.0');
    expect((await search()).body.servers.map((entry) => entry.server.version)).toEqual(['1.1.0']);
    const deprecated = await server.request(
      'PATCH',
      `/api/v1/mcp/servers/${enc(name)}/versions/1.1.0/status`,
      {
        key: org.ownerKey,
        body: { status: 'deprecated', statusMessage: 'use 2.x' },
      },
    );
    expect(deprecated.status, deprecated.text).toBe(200);
    expect(official((await latest()).body).status).toBe('deprecated');
  });

  it('keeps one answer per query text: a query spelled two ways reads alike, and a publish refreshes both', async () => {
    const name = serverName('spelled');
    await publish(server, org, npmServer(name, '1.0.0'));
    const spellings = [
      `/servers?search=${enc(name)}&version=latest&limit=5`,
      `/servers?limit=5&version=latest&search=${enc(name)}`,
    ];
    const versions = async () =>
      Promise.all(
        spellings.map(async (path) => (await read(path)).body.servers.map((entry) => entry.server.version)),
      );
    expect(await versions()).toEqual([['1.0.0'], ['1.0.0']]);
    expect(await versions()).toEqual([['1.0.0'], ['1.0.0']]);
    await publish(server, org, npmServer(name, '1.1.0'));
    expect(await versions()).toEqual([['1.1.0'], ['1.1.0']]);
    // The text is the key, the validated query the answer: a bad spelling is refused, never served.
    expect((await read(`/servers?search=${enc(name)}&limit=5&limit=500`)).status).toBe(400);
  });

  it('never serves an answer read while the catalog was public once it is private', async () => {
    const other = await createOrganization(server);
    const name = serverName('closing');
    await publish(server, other, npmServer(name, '1.0.0'));
    await setAccess(server, other, 'public');
    const base = `/mcp/${other.slug}/v0.1/servers`;
    const paths = [base, `${base}/${enc(name)}/versions`, `${base}/${enc(name)}/versions/latest`];
    for (const path of paths) {
      expect((await server.request('GET', path)).status, path).toBe(200);
      expect((await server.request('GET', path)).status, path).toBe(200);
    }
    await setAccess(server, other, 'key');
    for (const path of paths) expect((await server.request('GET', path)).status, path).toBe(401);
    for (const path of paths) {
      expect((await server.request('GET', path, { key: other.ownerKey })).status, path).toBe(200);
    }
    // The key-protected answers just read are not what an anonymous read gets either.
    for (const path of paths) expect((await server.request('GET', path)).status, path).toBe(401);
  });
});

describe('CORS for IDEs', () => {
  it('answers the preflight and puts the headers on every answer, errors too', async () => {
    const preflight = await server.request('OPTIONS', `/mcp/${org.slug}/v0.1/servers`, {
      headers: {
        origin: 'vscode-file://vscode-app',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, OPTIONS');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type');
    expect(preflight.headers.get('access-control-max-age')).toBe('86400');
    for (const path of ['/servers', '/servers/com.example%2Fnone/versions/latest', '/servers?limit=0']) {
      const res = await read(path);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
    }
    // A path no route answers, under the face: still readable by the browser that asked.
    const unknown = await server.request('GET', `/mcp/${org.slug}/v0.2/servers`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('read access', () => {
  let privateOrg: TestOrganization;
  let name: string;
  beforeAll(async () => {
    privateOrg = await createOrganization(server);
    name = serverName('private');
    await publish(server, privateOrg, npmServer(name, '1.0.0'));
  });
  const list = (path: string, key?: string) => server.request<List>('GET', path, key ? { key } : {});

  it('is private by default: a Bearer key with mcp:read reads it, nothing else does', async () => {
    const base = `/mcp/${privateOrg.slug}/v0.1/servers`;
    const anonymous = await list(base);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('access-control-allow-origin')).toBe('*');
    const reader = await createKey(server, privateOrg, privateOrg.ownerId, {
      type: 'organization',
      permissions: ['mcp:read'],
    });
    const allowed = await list(base, reader.key);
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.body.servers.map((entry) => entry.server.name)).toEqual([name]);
    const withoutPermission = await createKey(server, privateOrg, privateOrg.ownerId, {
      type: 'organization',
      permissions: ['audit:read'],
    });
    expect((await list(base, withoutPermission.key)).status).toBe(403);
    // Another organization's key: the private catalog reads as absent.
    expect((await list(base, org.ownerKey)).status).toBe(404);
    // Members read (mcp:read) but do not publish (mcp:write is owners' and admins').
    const memberId = await addMember(server, privateOrg, 'member');
    const member = await createKey(server, privateOrg, memberId);
    expect((await list(base, member.key)).status).toBe(200);
    const publishing = await server.request('POST', '/api/v1/mcp/servers', {
      key: member.key,
      body: npmServer(serverName(), '1.0.0'),
    });
    expect(publishing.status).toBe(403);
  });

  it('behind a catalog link: reads with no credential, rotation ends the old link, key access ends all', async () => {
    await setAccess(server, privateOrg, 'link');
    const rotate = () =>
      server.request<{ data: { url: string } }>('POST', '/api/v1/mcp/catalog/link', {
        key: privateOrg.ownerKey,
      });
    const first = await rotate();
    expect(first.status, first.text).toBe(201);
    const firstPath = new URL(first.body.data.url).pathname;
    expect(firstPath).toMatch(/^\/mcp\/-\/[A-Za-z0-9]{43}$/);
    const viaLink = await list(`${firstPath}/v0.1/servers`);
    expect(viaLink.status, viaLink.text).toBe(200);
    expect(viaLink.body.servers.map((entry) => entry.server.name)).toEqual([name]);
    const one = await list(`${firstPath}/v0.1/servers/${enc(name)}/versions/latest`);
    expect(one.status).toBe(200);
    // The organization's address still needs a key.
    expect((await list(`/mcp/${privateOrg.slug}/v0.1/servers`)).status).toBe(401);

    const second = await rotate();
    const secondPath = new URL(second.body.data.url).pathname;
    expect(secondPath).not.toBe(firstPath);
    expect((await list(`${firstPath}/v0.1/servers`)).status).toBe(404);
    expect((await list(`${secondPath}/v0.1/servers`)).status).toBe(200);

    await setAccess(server, privateOrg, 'key');
    expect((await list(`${secondPath}/v0.1/servers`)).status).toBe(404);
    const settings = await server.request<{ data: { access: string; url: string; linkCreated: boolean } }>(
      'GET',
      '/api/v1/mcp/catalog',
      { key: privateOrg.ownerKey },
    );
    expect(settings.body.data).toMatchObject({ access: 'key', linkCreated: true });
    expect(settings.body.data.url).toBe(`${server.url}/mcp/${privateOrg.slug}`);
  });
});
