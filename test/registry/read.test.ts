import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/lib/clock.js';
import { expectRegistryError } from '../support/assertions.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import {
  type ExpertAnswer,
  expertBody,
  keyPath,
  published,
  uniqueName,
  type VersionsAnswer,
} from './helpers.js';

let server: TestServer;
let personal: TestOrganization;
let team: TestOrganization;
const clock = createManualClock(new Date('2026-03-01T00:00:00.000Z'));

// name → versions (published in this order); the team's Expert is scoped.
let plain: string;
let scoped: string;

beforeAll(async () => {
  server = await startServer({ clock });
  [personal, team] = await Promise.all([
    createOrganization(server, 'personal'),
    createOrganization(server, 'team'),
  ]);
  plain = uniqueName('reader');
  scoped = `@${team.slug}/${uniqueName('reader')}`;
  for (const version of ['1.0.0', '1.2.0', '1.10.0']) {
    clock.advance(1000);
    await published(
      server,
      personal.ownerKey,
      expertBody(plain, version, version === '1.2.0' ? { tags: ['stable'] } : {}),
    );
  }
  for (const version of ['0.1.0', '0.2.0']) {
    clock.advance(1000);
    await published(server, team.ownerKey, expertBody(scoped, version));
  }
});
afterAll(() => server.close());

const get = (path: string, headers?: Record<string, string>) =>
  server.request<ExpertAnswer>('GET', path, headers ? { headers } : {});

describe('GET /registry/experts/:expertKey', () => {
  it.each([
    ['name', () => plain, '1.10.0'],
    ['name@version', () => `${plain}@1.0.0`, '1.0.0'],
    ['name@latest', () => `${plain}@latest`, '1.10.0'],
    ['name@custom tag', () => `${plain}@stable`, '1.2.0'],
    ['@scope/name', () => scoped, '0.2.0'],
    ['@scope/name@version', () => `${scoped}@0.1.0`, '0.1.0'],
    ['@scope/name@latest', () => `${scoped}@latest`, '0.2.0'],
  ])('resolves %s, encoded and not', async (_form, key, version) => {
    const encoded = await get(`/registry/experts/${encodeURIComponent(key())}`);
    const raw = await get(`/registry/experts/${key()}`);
    const atOnly = await get(`/registry/experts/${key().replaceAll('@', '%40')}`);
    for (const res of [encoded, raw, atOnly]) {
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.expert.version).toBe(version);
      expect(res.body.data.expert.type).toBe('registryExpert');
    }
  });

  it('is public: no credential needed, and an invalid one is not even looked at', async () => {
    expect((await get(keyPath(plain))).status).toBe(200);
    const res = await server.request('GET', keyPath(plain), { key: 'nonsense' });
    expect(res.status).toBe(200);
  });

  it('404 for an unknown name, version or tag, in the registry error shape', async () => {
    for (const key of [`${plain}-nope`, `${plain}@9.9.9`, `${plain}@nope`, `@${team.slug}/nope`]) {
      const res = await get(keyPath(key));
      expectRegistryError(res, 404);
      expect(res.body).toEqual({ code: 404, error: 'Not Found', reason: `Expert ${key} not found` });
    }
  });

  it('400 for a malformed key', async () => {
    for (const key of ['Bad Name', 'a@b@c', '@scope', 'x@1.0', `${'a'.repeat(600)}`]) {
      expectRegistryError(await get(keyPath(key)), 400);
    }
    expectRegistryError(await get('/registry/experts/%E0%A4%A'), 400);
  });

  it('sends an ETag and answers If-None-Match with 304', async () => {
    const first = await get(keyPath(`${plain}@1.0.0`));
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const again = await get(keyPath(`${plain}@1.0.0`), { 'if-none-match': etag! });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await get(keyPath(`${plain}@1.0.0`), { 'if-none-match': `W/${etag}` })).status).toBe(304);
    expect((await get(keyPath(`${plain}@1.0.0`), { 'if-none-match': `"other", ${etag}` })).status).toBe(304);
    const stale = await get(keyPath(`${plain}@1.0.0`), { 'if-none-match': '"stale"' });
    expect(stale.status).toBe(200);
    expect(stale.body).toEqual(first.body);
  });

  it('changes the ETag when the Expert changes', async () => {
    const before = (await get(keyPath(`${plain}@1.0.0`))).headers.get('etag')!;
    const up = await server.request('POST', keyPath(`${plain}@1.0.0`), {
      key: personal.ownerKey,
      body: { status: 'deprecated' },
    });
    expect(up.status).toBe(200);
    const after = await get(keyPath(`${plain}@1.0.0`), { 'if-none-match': before });
    expect(after.status).toBe(200);
    expect(after.body.data.expert.status).toBe('deprecated');
    expect(after.headers.get('etag')).not.toBe(before);
  });
});

describe('GET /registry/experts/:expertKey/versions', () => {
  it('lists every version as a short digest, with latest and meta.total', async () => {
    const res = await server.request<VersionsAnswer>('GET', keyPath(plain, '/versions'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.meta).toEqual({ total: 3 });
    expect(res.body.data.latest).toBe('1.10.0');
    // Newest by SemVer precedence first.
    expect(res.body.data.versions).toEqual([
      {
        type: 'expertDigest',
        id: expect.any(String),
        key: `${plain}@1.10.0`,
        name: plain,
        version: '1.10.0',
        tags: ['latest'],
      },
      {
        type: 'expertDigest',
        id: expect.any(String),
        key: `${plain}@1.2.0`,
        name: plain,
        version: '1.2.0',
        tags: ['stable'],
      },
      {
        type: 'expertDigest',
        id: expect.any(String),
        key: `${plain}@1.0.0`,
        name: plain,
        version: '1.0.0',
        tags: [],
      },
    ]);
  });

  it('ignores a version or tag part in the key, and takes scoped keys encoded or not', async () => {
    for (const path of [
      keyPath(`${plain}@1.0.0`, '/versions'),
      keyPath(`${plain}@stable`, '/versions'),
      `/registry/experts/${scoped}/versions`,
      `/registry/experts/${scoped}@0.1.0/versions`,
      keyPath(scoped, '/versions'),
      `/registry/experts/${encodeURIComponent(`${scoped}/versions`)}`,
    ]) {
      const res = await server.request<VersionsAnswer>('GET', path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
    const res = await server.request<VersionsAnswer>('GET', `/registry/experts/${scoped}/versions`);
    expect(res.body.data).toMatchObject({ latest: '0.2.0' });
    expect(res.body.meta.total).toBe(2);
  });

  it('404 for an unknown name, 400 for a malformed one; ETag and 304', async () => {
    expectRegistryError(await server.request('GET', keyPath(`${plain}-nope`, '/versions')), 404);
    expectRegistryError(await server.request('GET', keyPath('Bad', '/versions')), 400);
    const first = await server.request('GET', keyPath(plain, '/versions'));
    const etag = first.headers.get('etag')!;
    const again = await server.request('GET', keyPath(plain, '/versions'), {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
  });

  it('an Expert named "versions" is still reachable', async () => {
    const name = `@${team.slug}/versions`;
    await published(server, team.ownerKey, expertBody(name));
    const res = await get(`/registry/experts/${name}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.expert.name).toBe(name);
  });
});

describe('GET /registry/experts/:expertKey/delegators', () => {
  it('lists the versions delegating to any version or tag of the name, newest first; a look-alike name is not one', async () => {
    const target = `${uniqueName('tgt')}_x`;
    const lookAlike = target.replace(/_x$/, 'zx');
    await published(server, personal.ownerKey, expertBody(target, '1.0.0'));
    await published(server, personal.ownerKey, expertBody(lookAlike, '1.0.0'));
    const exact = uniqueName('exact');
    const bare = uniqueName('bare');
    const other = uniqueName('other');
    clock.advance(1_000);
    await published(
      server,
      personal.ownerKey,
      expertBody(exact, '1.0.0', { delegates: [`${target}@1.0.0`] }),
    );
    clock.advance(1_000);
    await published(server, personal.ownerKey, expertBody(bare, '1.0.0', { delegates: [target] }));
    clock.advance(1_000);
    await published(
      server,
      personal.ownerKey,
      expertBody(other, '1.0.0', { delegates: [`${lookAlike}@1.0.0`] }),
    );

    for (const key of [target, `${target}@1.0.0`, `${target}@latest`]) {
      const res = await server.request<{
        data: { experts: Array<{ key: string }> };
        meta: { total: number };
      }>('GET', keyPath(key, '/delegators'));
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.experts.map((e) => e.key)).toEqual([`${bare}@1.0.0`, `${exact}@1.0.0`]);
      expect(res.body.meta.total).toBe(2);
    }
    const none = await server.request<{ data: { experts: unknown[] } }>('GET', keyPath(exact, '/delegators'));
    expect(none.body.data.experts).toEqual([]);
    expectRegistryError(await server.request('GET', '/registry/experts/Not%20A%20Key/delegators'), 400);
  });
});
