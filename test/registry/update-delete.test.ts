import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRegistryError } from '../support/assertions.js';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import {
  type ExpertAnswer,
  expertBody,
  getExpert,
  keyPath,
  latestHolders,
  published,
  tagsOf,
  uniqueName,
  versionsOf,
} from './helpers.js';

let server: TestServer;
let org: TestOrganization;
let other: TestOrganization;
let team: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  [org, other, team] = await Promise.all([
    createOrganization(server),
    createOrganization(server),
    createOrganization(server, 'team'),
  ]);
});
afterAll(() => server.close());

const update = (key: string, body: unknown, apiKey = org.ownerKey) =>
  server.request<ExpertAnswer>('POST', keyPath(key), { key: apiKey, body });
const remove = (key: string, apiKey = org.ownerKey) =>
  server.request('DELETE', keyPath(key), { key: apiKey });

describe('POST /registry/experts/:expertKey: status', () => {
  it.each([
    [['deprecated'], 'deprecated'],
    [['disabled'], 'disabled'],
    [['deprecated', 'disabled'], 'disabled'],
    [['deprecated', 'available'], 'available'],
  ])('follows the transition table: %j → %s', async (steps, final) => {
    const name = uniqueName();
    await published(server, org.ownerKey, expertBody(name));
    let last: ExpertAnswer | undefined;
    for (const status of steps) {
      const res = await update(`${name}@1.0.0`, { status });
      expect(res.status, res.text).toBe(200);
      last = res.body;
    }
    expect(last?.data.expert).toMatchObject({ type: 'registryExpert', status: final });
    expect((await getExpert(server, `${name}@1.0.0`)).body.data.expert.status).toBe(final);
  });

  it('the same status again is 400; disabled is terminal', async () => {
    const name = uniqueName();
    await published(server, org.ownerKey, expertBody(name));
    expectRegistryError(await update(name, { status: 'available' }), 400);
    expect((await update(name, { status: 'disabled' })).status).toBe(200);
    for (const status of ['available', 'deprecated', 'disabled']) {
      expectRegistryError(await update(name, { status }), 400);
    }
    expect((await getExpert(server, name)).body.data.expert.status).toBe('disabled');
    // Tags may still change on a disabled version (only status is terminal).
    expect((await update(name, { tags: ['old'] })).status).toBe(200);
  });

  it('status changes leave latest and tags alone and bump updatedAt', async () => {
    const name = uniqueName();
    const before = await published(server, org.ownerKey, expertBody(name, '1.0.0', { tags: ['stable'] }));
    const res = await update(name, { status: 'deprecated' });
    expect(res.body.data.expert.tags).toEqual(['latest', 'stable']);
    expect(res.body.data.expert.createdAt).toBe(before.createdAt);
    expect(new Date(res.body.data.expert.updatedAt as string) >= new Date(before.updatedAt as string)).toBe(
      true,
    );
  });

  it.each([[{}], [{ status: 'gone' }], [{ tags: ['latest'] }], [{ tags: ['Bad Tag'] }], [{ extra: 1 }]])(
    '400 for the body %j',
    async (body) => {
      const name = uniqueName();
      await published(server, org.ownerKey, expertBody(name));
      expectRegistryError(await update(name, body), 400);
    },
  );
});

describe('POST /registry/experts/:expertKey: tags', () => {
  it('replaces the version custom tags; latest stays where it is', async () => {
    const name = uniqueName();
    await published(server, org.ownerKey, expertBody(name, '1.0.0', { tags: ['a', 'b'] }));
    await published(server, org.ownerKey, expertBody(name, '2.0.0'));
    const res = await update(`${name}@1.0.0`, { tags: ['c'] });
    expect(res.body.data.expert.tags).toEqual(['c']);
    expect(await tagsOf(server, `${name}@2.0.0`)).toEqual(['latest']);
    expect((await getExpert(server, `${name}@a`)).status).toBe(404);
    expect((await getExpert(server, `${name}@c`)).body.data.expert.version).toBe('1.0.0');
    expect((await update(`${name}@1.0.0`, { tags: [] })).body.data.expert.tags).toEqual([]);
  });

  it('moves a tag held by another version (one holder per name)', async () => {
    const name = uniqueName();
    await published(server, org.ownerKey, expertBody(name, '1.0.0', { tags: ['stable', 'lts'] }));
    await published(server, org.ownerKey, expertBody(name, '2.0.0', { tags: ['stable'] }));
    expect(await tagsOf(server, `${name}@1.0.0`)).toEqual(['lts']);
    await update(`${name}@1.0.0`, { tags: ['stable', 'lts'] });
    expect(await tagsOf(server, `${name}@2.0.0`)).toEqual(['latest']);
    expect((await getExpert(server, `${name}@stable`)).body.data.expert.version).toBe('1.0.0');
    // Tags are per name: another name may use the same tag.
    const sibling = uniqueName();
    await published(server, org.ownerKey, expertBody(sibling, '1.0.0', { tags: ['stable'] }));
    expect((await getExpert(server, `${name}@stable`)).body.data.expert.version).toBe('1.0.0');
  });

  it('works through every key form of the target (tag, bare name, scoped raw and encoded)', async () => {
    const name = `@${team.slug}/${uniqueName()}`;
    await published(server, team.ownerKey, expertBody(name, '1.0.0', { tags: ['x'] }));
    const raw = await server.request<ExpertAnswer>('POST', `/registry/experts/${name}@x`, {
      key: team.ownerKey,
      body: { tags: ['y'] },
    });
    expect(raw.status, raw.text).toBe(200);
    expect((await update(name, { status: 'deprecated' }, team.ownerKey)).body.data.expert.tags).toEqual([
      'latest',
      'y',
    ]);
  });
});

describe('POST /registry/experts/:expertKey: errors and security', () => {
  it('404 for an unknown Expert, 400 for a malformed key', async () => {
    expectRegistryError(await update(`${uniqueName()}@1.0.0`, { status: 'deprecated' }), 404);
    const name = uniqueName();
    await published(server, org.ownerKey, expertBody(name));
    expectRegistryError(await update(`${name}@9.9.9`, { status: 'deprecated' }), 404);
    expectRegistryError(await update('Bad Key', { status: 'deprecated' }), 400);
  });

  it('401 without or with an invalid credential; 403 without experts:write or for another organization', async () => {
    const name = uniqueName();
    await published(server, org.ownerKey, expertBody(name));
    expectRegistryError(await server.request('POST', keyPath(name), { body: { status: 'deprecated' } }), 401);
    expectRegistryError(await update(name, { status: 'deprecated' }, `cadre_${'y'.repeat(40)}`), 401);
    const memberId = await addMember(server, org, 'member');
    const readOnly = await createKey(server, org, memberId, {
      type: 'organization',
      permissions: ['billing:read'],
    });
    expectRegistryError(await update(name, { status: 'deprecated' }, readOnly.key), 403);
    expectRegistryError(await update(name, { status: 'deprecated' }, other.ownerKey), 403);
    const member = await createKey(server, org, memberId, {
      type: 'organization',
      permissions: ['experts:write'],
    });
    expect((await update(name, { status: 'deprecated' }, member.key)).status).toBe(200);
  });
});

describe('DELETE /registry/experts/:expertKey', () => {
  it('deletes one version: 200 with an empty body; it is gone', async () => {
    const name = uniqueName();
    await published(server, org.ownerKey, expertBody(name, '1.0.0'));
    await published(server, org.ownerKey, expertBody(name, '2.0.0'));
    const res = await remove(`${name}@1.0.0`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expectRegistryError(await getExpert(server, `${name}@1.0.0`), 404);
    expect((await versionsOf(server, name)).body.meta.total).toBe(1);
  });

  it('latest moves to the most recently published remaining version, then disappears with the last', async () => {
    const name = uniqueName();
    const orgTotal = async () =>
      (await server.request<{ meta: { total: number } }>('GET', `/registry/experts?organizationId=${org.id}`))
        .body.meta.total;
    const before = await orgTotal();
    for (const v of ['1.0.0', '3.0.0', '2.0.0']) await published(server, org.ownerKey, expertBody(name, v));
    expect(await latestHolders(server, name)).toEqual(['2.0.0']);
    expect(await orgTotal()).toBe(before + 1);
    expect((await remove(`${name}@2.0.0`)).status).toBe(200);
    expect(await orgTotal()).toBe(before + 1);
    // 3.0.0 was published after 1.0.0
    expect(await latestHolders(server, name)).toEqual(['3.0.0']);
    expect((await remove(name)).status).toBe(200); // bare name = its latest
    expect(await latestHolders(server, name)).toEqual(['1.0.0']);
    expect((await remove(`${name}@latest`)).status).toBe(200);
    expectRegistryError(await getExpert(server, name), 404);
    expectRegistryError(await versionsOf(server, name), 404);
    expect(await orgTotal()).toBe(before);
    expect(
      (await server.request<{ meta: { total: number } }>('GET', `/registry/experts?filter=${name}`)).body.meta
        .total,
    ).toBe(0);
  });

  it('deleting a non-latest version leaves latest alone; its tags go with it', async () => {
    const name = uniqueName();
    await published(server, org.ownerKey, expertBody(name, '1.0.0', { tags: ['old'] }));
    await published(server, org.ownerKey, expertBody(name, '2.0.0'));
    expect((await remove(`${name}@old`)).status).toBe(200);
    expect(await latestHolders(server, name)).toEqual(['2.0.0']);
    expectRegistryError(await getExpert(server, `${name}@old`), 404);
  });

  describe('blocked (400) while delegated to', () => {
    it('by exact name@version', async () => {
      const target = uniqueName();
      await published(server, org.ownerKey, expertBody(target, '1.0.0'));
      await published(server, org.ownerKey, expertBody(target, '2.0.0'));
      const user = uniqueName();
      await published(server, other.ownerKey, expertBody(user, '1.0.0', { delegates: [`${target}@1.0.0`] }));
      expectRegistryError(await remove(`${target}@1.0.0`), 400);
      // Other versions are not blocked by it.
      expect((await remove(`${target}@2.0.0`)).status).toBe(200);
      // Once the delegating Expert is gone, the delete goes through.
      expect((await remove(`${user}@1.0.0`, other.ownerKey)).status).toBe(200);
      expect((await remove(`${target}@1.0.0`)).status).toBe(200);
    });

    it.each([
      ['the bare name', ''],
      ['name@latest', '@latest'],
    ])('by %s only when it is the last remaining version', async (_label, suffix) => {
      const target = uniqueName();
      await published(server, org.ownerKey, expertBody(target, '1.0.0'));
      await published(server, org.ownerKey, expertBody(target, '2.0.0'));
      await published(
        server,
        other.ownerKey,
        expertBody(uniqueName(), '1.0.0', { delegates: [`${target}${suffix}`] }),
      );
      expect((await remove(`${target}@2.0.0`)).status).toBe(200);
      const blocked = await remove(`${target}@1.0.0`);
      expectRegistryError(blocked, 400);
      expect(blocked.body).toMatchObject({ reason: expect.stringContaining('delegate') });
      expect((await getExpert(server, `${target}@1.0.0`)).status).toBe(200);
    });

    it('by a custom tag the version holds', async () => {
      const target = uniqueName();
      await published(server, org.ownerKey, expertBody(target, '1.0.0', { tags: ['stable'] }));
      await published(server, org.ownerKey, expertBody(target, '2.0.0'));
      await published(
        server,
        other.ownerKey,
        expertBody(uniqueName(), '1.0.0', { delegates: [`${target}@stable`] }),
      );
      expectRegistryError(await remove(`${target}@1.0.0`), 400);
    });
  });

  it('404 for an unknown Expert; 400 for a malformed key', async () => {
    expectRegistryError(await remove(`${uniqueName()}@1.0.0`), 404);
    expectRegistryError(await remove('Bad Key'), 400);
  });

  it('only the organization owner with experts:delete may delete; other organizations get 403', async () => {
    const name = uniqueName();
    await published(server, org.ownerKey, expertBody(name));
    expectRegistryError(await server.request('DELETE', keyPath(name)), 401);
    expectRegistryError(await remove(name, `cadre_${'z'.repeat(40)}`), 401);
    const adminId = await addMember(server, org, 'admin');
    expectRegistryError(await remove(name, (await createKey(server, org, adminId)).key), 403);
    const memberId = await addMember(server, org, 'member');
    expectRegistryError(await remove(name, (await createKey(server, org, memberId)).key), 403);
    const ownerWriteOnly = await createKey(server, org, org.ownerId, {
      type: 'organization',
      permissions: ['experts:write'],
    });
    expectRegistryError(await remove(name, ownerWriteOnly.key), 403);
    expectRegistryError(await remove(name, other.ownerKey), 403);
    expect((await getExpert(server, name)).status).toBe(200);
    const ownerDelete = await createKey(server, org, org.ownerId, {
      type: 'organization',
      permissions: ['experts:delete'],
    });
    expect((await remove(name, ownerDelete.key)).status).toBe(200);
  });
});
