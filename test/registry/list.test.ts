import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/lib/clock.js';
import { expectRegistryError } from '../support/assertions.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { expertBody, keyPath, published } from './helpers.js';

type ListAnswer = {
  data: { experts: Array<{ type: string; name: string; version: string; tags: string[]; key: string }> };
  meta: { total: number; take: number; skip: number };
};

let server: TestServer;
let alice: TestOrganization;
let bob: TestOrganization;
const clock = createManualClock(new Date('2026-02-01T00:00:00.000Z'));

// Published in this order (createdAt ascending). Only the last version of each name is listed.
const PUBLISHES: Array<[org: 'alice' | 'bob', name: string, version: string]> = [
  ['alice', 'zeta', '1.9.0'],
  ['alice', 'alpha', '0.1.0'],
  ['bob', 'beta_one', '1.10.0'],
  ['alice', 'alpha', '2.0.0-rc.1'],
  ['bob', 'beta-two', '1.9.0-rc.1'],
  ['bob', 'betaxone', '3.0.0'],
  ['alice', 'gamma', '1.2.3'],
];
const names = (res: { body: ListAnswer }) => res.body.data.experts.map((e) => e.name);
const list = (query: string) => server.request<ListAnswer>('GET', `/registry/experts${query}`);

beforeAll(async () => {
  server = await startServer({ clock });
  [alice, bob] = await Promise.all([createOrganization(server), createOrganization(server)]);
  for (const [org, name, version] of PUBLISHES) {
    clock.advance(60_000);
    await published(server, (org === 'alice' ? alice : bob).ownerKey, expertBody(name, version));
  }
  // gamma changes last: newest updatedAt, oldest-but-one createdAt among the listed.
  clock.advance(60_000);
  const res = await server.request('POST', keyPath('zeta'), {
    key: alice.ownerKey,
    body: { tags: ['stable'] },
  });
  expect(res.status).toBe(200);
});
afterAll(() => server.close());

describe('GET /registry/experts', () => {
  it('lists only latest holders as digests, newest first by default, with meta', async () => {
    const res = await list('');
    expect(res.status, res.text).toBe(200);
    expect(names(res)).toEqual(['gamma', 'betaxone', 'beta-two', 'alpha', 'beta_one', 'zeta']);
    expect(res.body.meta).toEqual({ total: 6, take: 100, skip: 0 });
    expect(res.body.data.experts.find((e) => e.name === 'alpha')).toMatchObject({
      type: 'expertDigest',
      version: '2.0.0-rc.1',
      key: 'alpha@2.0.0-rc.1',
      tags: ['latest'],
    });
    expect(res.body.data.experts[0]).not.toHaveProperty('instruction');
    expect(res.body.data.experts[0]).not.toHaveProperty('status');
  });

  it('sorts by name, createdAt and updatedAt in either order', async () => {
    expect(names(await list('?sort=name&order=asc'))).toEqual([
      'alpha',
      'beta-two',
      'beta_one',
      'betaxone',
      'gamma',
      'zeta',
    ]);
    expect(names(await list('?sort=name'))).toEqual([
      'zeta',
      'gamma',
      'betaxone',
      'beta_one',
      'beta-two',
      'alpha',
    ]);
    expect(names(await list('?sort=createdAt&order=asc'))).toEqual([
      'zeta',
      'beta_one',
      'alpha',
      'beta-two',
      'betaxone',
      'gamma',
    ]);
    expect(names(await list('?sort=updatedAt&order=desc'))[0]).toBe('zeta');
    expect(names(await list('?sort=updatedAt&order=asc')).at(-1)).toBe('zeta');
  });

  it('sorts by version using SemVer precedence, not text', async () => {
    const versions = (await list('?sort=version&order=asc')).body.data.experts.map((e) => e.version);
    expect(versions).toEqual(['1.2.3', '1.9.0-rc.1', '1.9.0', '1.10.0', '2.0.0-rc.1', '3.0.0']);
    const desc = (await list('?sort=version')).body.data.experts.map((e) => e.version);
    expect(desc).toEqual(['3.0.0', '2.0.0-rc.1', '1.10.0', '1.9.0', '1.9.0-rc.1', '1.2.3']);
  });

  it('pages with take and skip; total counts every match', async () => {
    const page = await list('?sort=name&order=asc&take=2&skip=2');
    expect(names(page)).toEqual(['beta_one', 'betaxone']);
    expect(page.body.meta).toEqual({ total: 6, take: 2, skip: 2 });
    const past = await list('?skip=50');
    expect(past.body.data.experts).toEqual([]);
    expect(past.body.meta).toEqual({ total: 6, take: 100, skip: 50 });
    expect((await list('?take=1')).body.data.experts).toHaveLength(1);
    expect((await list('?take=100')).status).toBe(200);
  });

  it('filters by case-insensitive name prefix; _ and % are literal', async () => {
    expect(names(await list('?filter=BETA&sort=name&order=asc'))).toEqual([
      'beta-two',
      'beta_one',
      'betaxone',
    ]);
    expect(names(await list('?filter=beta_&sort=name&order=asc'))).toEqual(['beta_one']);
    expect(names(await list('?filter=%25'))).toEqual([]);
    expect(names(await list('?filter=eta'))).toEqual([]);
    expect((await list('?filter=beta')).body.meta.total).toBe(3);
  });

  it('filters by organizationId', async () => {
    const res = await list(`?organizationId=${bob.id}&sort=name&order=asc`);
    expect(names(res)).toEqual(['beta-two', 'beta_one', 'betaxone']);
    expect(res.body.meta.total).toBe(3);
    expect((await list('?organizationId=unknown')).body.meta.total).toBe(0);
  });

  it.each([
    'take=0',
    'take=101',
    'take=-1',
    'take=1.5',
    'take=abc',
    'skip=-1',
    'skip=x',
    'sort=popularity',
    'order=up',
  ])('400 for %s', async (query) => {
    expectRegistryError(await list(`?${query}`), 400);
  });

  it('is public and sends an ETag honoured by If-None-Match', async () => {
    const first = await list('?sort=name');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    expect(
      (await server.request('GET', '/registry/experts?sort=name', { headers: { 'if-none-match': etag } }))
        .status,
    ).toBe(304);
    expect(
      (
        await server.request('GET', '/registry/experts?sort=createdAt', {
          headers: { 'if-none-match': etag },
        })
      ).status,
    ).toBe(200);
  });
});
