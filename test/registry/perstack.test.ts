import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRegistryError } from '../support/assertions.js';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import {
  createPerstackClient,
  type PerstackClient,
  type PublishInput,
  resolveDelegation,
} from '../support/perstack-client.js';
import { startServer, type TestServer } from '../support/server.js';
import { expertBody, getExpert, keyPath, published, uniqueName, versionsOf } from './helpers.js';

// The Perstack-compatible face (docs/perstack.md), driven by a client that speaks Perstack's wire contract
// (test/support/perstack-client.ts): every answer passes schemas as strict as that client's.

let server: TestServer;
let personal: TestOrganization;
let team: TestOrganization;
let other: TestOrganization;
let anonymous: PerstackClient;
let personalClient: PerstackClient;
let teamClient: PerstackClient;

beforeAll(async () => {
  server = await startServer();
  [personal, team, other] = await Promise.all([
    createOrganization(server, 'personal'),
    createOrganization(server, 'team'),
    createOrganization(server, 'personal'),
  ]);
  anonymous = createPerstackClient(server.url);
  personalClient = createPerstackClient(server.url, personal.ownerKey);
  teamClient = createPerstackClient(server.url, team.ownerKey);
});
afterAll(() => server.close());

/** What `perstack publish` sends for an Expert of perstack.toml. */
function cliPayload(name: string, version = '1.0.0', extra: Partial<PublishInput> = {}): PublishInput {
  return {
    name,
    version,
    minRuntimeVersion: 'v1.0',
    description: `The ${name} Expert`,
    instruction: `You are ${name}.`,
    skills: {
      '@perstack/base': {
        type: 'mcpStdioSkill',
        description: '@perstack/base skill',
        command: 'npx',
        packageName: '@perstack/base',
      },
    },
    delegates: [],
    tags: ['latest'],
    ...extra,
  };
}

async function created(client: PerstackClient, input: PublishInput) {
  const result = await client.create(input);
  if (!result.ok) throw new Error(`publish ${input.name}: ${JSON.stringify(result.error)}`);
  return result.data;
}

describe('publish (what `perstack publish` sends)', () => {
  it('publishes for a personal organization with tags ["latest"] and @perstack/base, stored as written', async () => {
    const name = uniqueName('pub');
    const input = cliPayload(name, '1.2.0');
    const expert = await created(personalClient, input);
    expect(expert).toMatchObject({
      type: 'registryExpert',
      key: `${name}@1.2.0`,
      minRuntimeVersion: 'v1.0',
      status: 'available',
      tags: ['latest'],
      owner: { name: personal.slug, organizationId: personal.id },
      skills: input.skills,
      delegates: [],
    });
    // The registry face shows the same record, its minRuntimeVersion exactly as stored.
    const read = await getExpert(server, `${name}@1.2.0`);
    expect(read.body.data.expert).toMatchObject({ minRuntimeVersion: 'v1.0', skills: input.skills });
  });

  it('publishes a scoped name for a team organization, with custom tags beside "latest"', async () => {
    const name = `@${team.slug}/${uniqueName('team')}`;
    const expert = await created(teamClient, cliPayload(name, '2.0.0', { tags: ['latest', 'stable'] }));
    expect(expert.key).toBe(`${name}@2.0.0`);
    expect(expert.tags).toEqual(['latest', 'stable']);
  });

  it('keeps the naming rules: a team publishes scoped names only', async () => {
    const result = await teamClient.create(cliPayload(uniqueName('unscoped')));
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 400,
        message: expect.stringMatching(/^Bad Request: Team accounts publish scoped names only/),
      },
    });
    expect(String((result as { error: { reason: unknown } }).error.reason)).toContain('scoped names only');
  });

  it('adds @perstack/base to an Expert that names no skills, as the runtime gives it one', async () => {
    const name = uniqueName('bare');
    const expert = await created(personalClient, cliPayload(name, '1.0.0', { skills: {} }));
    expect(Object.keys(expert.skills)).toEqual(['@perstack/base']);
    expect(expert.skills['@perstack/base']).toMatchObject({ type: 'mcpStdioSkill', command: 'npx' });
  });

  it('keeps @service/base when the definition has it, adding nothing; this face names it @perstack/base', async () => {
    const name = uniqueName('svc');
    const skills = { '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' } };
    const expert = await created(personalClient, cliPayload(name, '1.0.0', { skills }));
    expect(Object.keys(expert.skills)).toEqual(['@perstack/base']);
    expect(expert.skills['@perstack/base']).toMatchObject({
      packageName: '@cadre/base',
      name: '@perstack/base',
    });
    // Stored as written: the registry face shows it under its own name.
    expect((await getExpert(server, `${name}@1.0.0`)).body.data.expert.skills).toEqual(skills);
  });

  it('publishes with a delegate, which must exist', async () => {
    const target = uniqueName('target');
    await created(personalClient, cliPayload(target));
    const name = uniqueName('boss');
    const expert = await created(
      personalClient,
      cliPayload(name, '1.0.0', { delegates: [`${target}@1.0.0`] }),
    );
    expect(expert.delegates).toEqual([`${target}@1.0.0`]);
    const missing = await personalClient.create(
      cliPayload(uniqueName('boss'), '1.0.0', { delegates: ['no-such-expert-anywhere'] }),
    );
    expect(missing).toMatchObject({ ok: false, error: { code: 400 } });
  });

  it('refuses a runtime newer than v1.0, pointing at /registry', async () => {
    const result = await personalClient.create(
      cliPayload(uniqueName('new'), '1.0.0', { minRuntimeVersion: 'v2.0' }),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    // A validation failure: 422, as Perstack's API documents it.
    expect(result.error.code).toBe(422);
    expect(String(result.error.reason)).toContain('POST /registry/experts');
  });

  it('still refuses a version number used before, and checks every tag', async () => {
    const name = uniqueName('again');
    await created(personalClient, cliPayload(name));
    const again = await personalClient.create(cliPayload(name));
    expect(again).toMatchObject({ ok: false, error: { code: 400 } });
    const badTag = await personalClient.create(
      cliPayload(uniqueName('tag'), '1.0.0', { tags: ['latest', 'Bad Tag'] }),
    );
    expect(badTag).toMatchObject({ ok: false, error: { code: 422 } });
    expect(String((badTag as { error: { reason: unknown } }).error.reason)).toContain('tags.1');
  });

  it('answers 401 without a key and 400 (Perstack’s status) for a name another organization holds', async () => {
    const name = uniqueName('owned');
    await created(personalClient, cliPayload(name));
    const noKey = await anonymous.create(cliPayload(uniqueName('nokey')));
    expect(noKey).toMatchObject({
      ok: false,
      error: { code: 401, message: 'Unauthorized: Missing or invalid credentials' },
    });
    const foreign = await createPerstackClient(server.url, other.ownerKey).create(cliPayload(name, '2.0.0'));
    expect(foreign).toMatchObject({
      ok: false,
      error: { code: 400, message: `Bad Request: The name ${name} belongs to another organization` },
    });
  });
});

describe('get by every key form', () => {
  let name: string;
  let scoped: string;
  beforeAll(async () => {
    name = uniqueName('forms');
    scoped = `@${team.slug}/${uniqueName('forms')}`;
    await created(personalClient, cliPayload(name, '1.0.0'));
    await created(personalClient, cliPayload(name, '1.2.3', { tags: ['latest', 'beta'] }));
    await created(personalClient, cliPayload(name, '1.3.0'));
    await created(teamClient, cliPayload(scoped, '1.0.0'));
    await created(teamClient, cliPayload(scoped, '1.2.3'));
  });

  it.each([
    ['name', () => name, () => `${name}@1.3.0`],
    ['name@1.2.3', () => `${name}@1.2.3`, () => `${name}@1.2.3`],
    ['name@latest', () => `${name}@latest`, () => `${name}@1.3.0`],
    ['name@tag', () => `${name}@beta`, () => `${name}@1.2.3`],
    ['@scope/name', () => scoped, () => `${scoped}@1.2.3`],
    ['@scope/name@1.2.3', () => `${scoped}@1.2.3`, () => `${scoped}@1.2.3`],
    ['@scope/name@1.0.0', () => `${scoped}@1.0.0`, () => `${scoped}@1.0.0`],
  ])('%s', async (_form, key, expected) => {
    const result = await anonymous.get(key());
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (result.ok) expect(result.data.key).toBe(expected());
  });

  it('answers a missing key with a registry-shaped 404 whose message is a sentence, not an object', async () => {
    const result = await anonymous.get(`${name}@9.9.9`);
    expect(result).toMatchObject({
      ok: false,
      error: { code: 404, message: `Not Found: Expert ${name}@9.9.9 not found` },
    });
    expect(String((result as { error: { reason: unknown } }).error.reason)).toContain(`${name}@9.9.9`);
  });

  it('lists the versions as whole digests, newest first, with latest and total', async () => {
    const result = await anonymous.getVersions(name);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.data.latest).toBe('1.3.0');
    expect(result.data.total).toBe(3);
    expect(result.data.versions.map((v) => v.version)).toEqual(['1.3.0', '1.2.3', '1.0.0']);
    expect(result.data.versions[1]).toMatchObject({
      type: 'expertDigest',
      key: `${name}@1.2.3`,
      description: `The ${name} Expert`,
      tags: ['beta'],
      owner: { name: personal.slug, organizationId: personal.id },
    });
    const scopedVersions = await anonymous.getVersions(scoped);
    expect(scopedVersions.ok && scopedVersions.data.total).toBe(2);
  });
});

describe('list with every query parameter', () => {
  const prefix = `lst-${process.pid}-${Date.now().toString(36)}`;
  beforeAll(async () => {
    // Published in this order: b, c, a (createdAt order), versions 2.0.0, 1.0.0, 3.0.0.
    await created(personalClient, cliPayload(`${prefix}-b`, '2.0.0'));
    await created(personalClient, cliPayload(`${prefix}-c`, '1.0.0'));
    await created(personalClient, cliPayload(`${prefix}-a`, '3.0.0'));
  });

  it('answers whole records with meta, filtered by name prefix and organization', async () => {
    const result = await anonymous.list({ filter: prefix, organizationId: personal.id });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.data.meta).toEqual({ total: 3, take: 100, skip: 0 });
    const [first] = result.data.data;
    expect(first).toMatchObject({ type: 'registryExpert', status: 'available', delegates: [] });
    expect(first?.instruction).toContain('You are');
    expect(Object.keys(first?.skills ?? {})).toEqual(['@perstack/base']);
    const elsewhere = await anonymous.list({ filter: prefix, organizationId: other.id });
    expect(elsewhere.ok && elsewhere.data.meta.total).toBe(0);
  });

  it.each([
    [{ sort: 'name', order: 'asc' }, ['a', 'b', 'c']],
    [{ sort: 'name', order: 'desc' }, ['c', 'b', 'a']],
    [{ sort: 'version', order: 'asc' }, ['c', 'b', 'a']],
    [{ sort: 'createdAt', order: 'asc' }, ['b', 'c', 'a']],
    [{ sort: 'updatedAt', order: 'desc' }, ['a', 'c', 'b']],
  ] as const)('sorts by %o', async (params, order) => {
    const result = await anonymous.list({ filter: prefix, ...params });
    expect(result.ok && result.data.data.map((e) => e.name)).toEqual(order.map((s) => `${prefix}-${s}`));
  });

  it('pages with take and skip', async () => {
    const result = await anonymous.list({ filter: prefix, sort: 'name', order: 'asc', take: 1, skip: 1 });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.data.data.map((e) => e.name)).toEqual([`${prefix}-b`]);
    expect(result.data.meta).toEqual({ total: 3, take: 1, skip: 1 });
  });

  it('answers a bad parameter with a registry-shaped 422 (Perstack’s status for a validation failure)', async () => {
    const res = await server.request('GET', '/api/registry/v1/experts/?take=0');
    expectRegistryError(res, 422);
  });
});

describe('update status and tags (perstack status, perstack tag)', () => {
  it('changes the status, then the tags; "latest" sent back for the version holding it is a no-op', async () => {
    const name = uniqueName('upd');
    await created(personalClient, cliPayload(name, '1.0.0'));
    const status = await personalClient.update(`${name}@1.0.0`, { status: 'deprecated' });
    expect(status.ok && status.data.status).toBe('deprecated');
    // The tag wizard sends the version's tags as read, `latest` among them.
    const tagged = await personalClient.update(`${name}@1.0.0`, { tags: ['latest', 'stable'] });
    expect(tagged.ok, JSON.stringify(tagged)).toBe(true);
    expect(tagged.ok && tagged.data.tags).toEqual(['latest', 'stable']);
  });

  it('refuses "latest" for a version that does not hold it, changing nothing', async () => {
    const name = uniqueName('upd');
    await created(personalClient, cliPayload(name, '1.0.0', { tags: ['latest', 'old'] }));
    await created(personalClient, cliPayload(name, '2.0.0'));
    const result = await personalClient.update(`${name}@1.0.0`, { tags: ['latest'] });
    expect(result).toMatchObject({ ok: false, error: { code: 400 } });
    expect(String((result as { error: { reason: unknown } }).error.reason)).toContain(
      '"latest" cannot be given',
    );
    const read = await anonymous.get(`${name}@1.0.0`);
    expect(read.ok && read.data.tags).toEqual(['old']);
  });

  it('keeps the registry rules: 401 without a key, 400 (Perstack’s status) for another organization, 404 for no version', async () => {
    const name = uniqueName('upd');
    await created(personalClient, cliPayload(name));
    expect(await anonymous.update(`${name}@1.0.0`, { status: 'deprecated' })).toMatchObject({
      ok: false,
      error: { code: 401 },
    });
    const foreign = createPerstackClient(server.url, other.ownerKey);
    expect(await foreign.update(`${name}@1.0.0`, { status: 'deprecated' })).toMatchObject({
      ok: false,
      error: { code: 400 },
    });
    expect(await personalClient.update(`${name}@7.0.0`, { status: 'deprecated' })).toMatchObject({
      ok: false,
      error: { code: 404 },
    });
  });
});

describe('delete (perstack unpublish)', () => {
  it('deletes with a bodiless JSON request, answers {}, then 404', async () => {
    const name = uniqueName('del');
    await created(personalClient, cliPayload(name, '1.0.0'));
    await created(personalClient, cliPayload(name, '1.1.0'));
    const result = await personalClient.delete(`${name}@1.1.0`);
    expect(result, JSON.stringify(result)).toEqual({ ok: true, data: undefined });
    const request = personalClient.sent.at(-1);
    expect(request).toMatchObject({ method: 'DELETE', body: undefined });
    expect(request?.headers['Content-Type']).toBe('application/json');
    expect(await anonymous.get(`${name}@1.1.0`)).toMatchObject({ ok: false, error: { code: 404 } });
    // `latest` moved back to the remaining version.
    const remaining = await anonymous.get(name);
    expect(remaining.ok && remaining.data.version).toBe('1.0.0');
  });

  it('answers 401 without a key, and 403 to a member who is not the owner', async () => {
    const name = uniqueName('del');
    await created(personalClient, cliPayload(name));
    expect(await anonymous.delete(`${name}@1.0.0`)).toMatchObject({ ok: false, error: { code: 401 } });
    const memberId = await addMember(server, personal, 'admin');
    const { key } = await createKey(server, personal, memberId);
    expect(await createPerstackClient(server.url, key).delete(`${name}@1.0.0`)).toMatchObject({
      ok: false,
      error: { code: 403 },
    });
  });
});

describe('runtime versions across the two faces', () => {
  it('presents every version that needs no newer runtime as "v1.0"; /registry returns it as stored', async () => {
    for (const stored of ['1.0.0', 'v1', '1.0', '0.3.1', 'v1.0.7']) {
      const name = uniqueName('rt');
      await published(server, personal.ownerKey, expertBody(name, '1.0.0', { minRuntimeVersion: stored }));
      const read = await anonymous.get(name);
      expect(read.ok && read.data.minRuntimeVersion, stored).toBe('v1.0');
      const original = await getExpert(server, name);
      expect(original.body.data.expert.minRuntimeVersion).toBe(stored);
    }
  });

  it('keeps an Expert that needs a newer runtime out of lists and versions, and says why when read', async () => {
    const prefix = `rtn-${process.pid}-${Date.now().toString(36)}`;
    await published(
      server,
      personal.ownerKey,
      expertBody(`${prefix}-old`, '1.0.0', { minRuntimeVersion: 'v1.0' }),
    );
    const newer = `${prefix}-new`;
    await published(server, personal.ownerKey, expertBody(newer, '1.0.0', { minRuntimeVersion: 'v1.0' }));
    await published(server, personal.ownerKey, expertBody(newer, '2.0.0', { minRuntimeVersion: '2.1.0' }));

    // One Expert the client cannot describe must not fail the list page for everyone else.
    const list = await anonymous.list({ filter: prefix });
    expect(list.ok, JSON.stringify(list)).toBe(true);
    expect(list.ok && list.data.data.map((e) => e.name)).toEqual([`${prefix}-old`]);
    expect(list.ok && list.data.meta.total).toBe(1);
    const unfiltered = await anonymous.list({ organizationId: personal.id, take: 100 });
    expect(unfiltered.ok, JSON.stringify(unfiltered)).toBe(true);
    if (unfiltered.ok) {
      expect(unfiltered.data.data.some((e) => e.name === newer)).toBe(false);
      const registryTotal = (
        await server.request<{ meta: { total: number } }>(
          'GET',
          `/registry/experts?organizationId=${personal.id}`,
        )
      ).body.meta.total;
      expect(unfiltered.data.meta.total).toBe(registryTotal - 1);
    }

    const direct = await anonymous.get(`${newer}@2.0.0`);
    expect(direct).toMatchObject({ ok: false, error: { code: 404 } });
    const reason = String((direct as { error: { reason: unknown } }).error.reason);
    expect(reason).toContain('needs runtime 2.1.0 or newer');
    expect(reason).toContain(`/registry/experts/${newer}@2.0.0`);
    // The name alone resolves to its latest, which is the newer one.
    expect(await anonymous.get(newer)).toMatchObject({ ok: false, error: { code: 404 } });

    const versions = await anonymous.getVersions(newer);
    expect(versions.ok, JSON.stringify(versions)).toBe(true);
    expect(versions.ok && versions.data).toMatchObject({ latest: '2.0.0', total: 1 });
    expect(versions.ok && versions.data.versions.map((v) => v.version)).toEqual(['1.0.0']);

    // The registry face serves it exactly as stored.
    expect((await getExpert(server, `${newer}@2.0.0`)).body.data.expert.minRuntimeVersion).toBe('2.1.0');
    expect((await versionsOf(server, newer)).body.meta.total).toBe(2);

    // An update through this face could not be answered: refused before anything changes.
    const update = await personalClient.update(`${newer}@2.0.0`, { status: 'deprecated' });
    expect(update).toMatchObject({ ok: false, error: { code: 404 } });
    expect((await getExpert(server, `${newer}@2.0.0`)).body.data.expert.status).toBe('available');
  });
});

describe('one registry, two faces', () => {
  it('reads a version published through either face identically, apart from the documented differences', async () => {
    const viaPerstack = uniqueName('both');
    await created(personalClient, cliPayload(viaPerstack, '1.0.0', { tags: ['latest', 'stable'] }));
    const viaRegistry = uniqueName('both');
    await published(
      server,
      personal.ownerKey,
      expertBody(viaRegistry, '1.0.0', { minRuntimeVersion: 'v1.0' }),
    );
    for (const name of [viaPerstack, viaRegistry]) {
      const registry = (await getExpert(server, `${name}@1.0.0`)).body.data.expert;
      const perstack = await anonymous.get(`${name}@1.0.0`);
      expect(perstack.ok).toBe(true);
      // minRuntimeVersion is "v1.0" on both here (stored so); everything but the skills is the same record.
      // Perstack's client drops fields it does not know (integrity), so the raw answer is compared for that one.
      const { integrity, skills, ...known } = registry;
      const { skills: presented, ...rest } = perstack.ok ? perstack.data : { skills: {} };
      expect(rest).toEqual(known);
      // The skills: the base skill, stored as @perstack/base or @service/base, read as @perstack/base, with
      // every field Perstack's runtime reads; the stored fields unchanged.
      const [stored] = Object.values(skills);
      expect(presented).toEqual({
        '@perstack/base': {
          args: [],
          pick: [],
          omit: [],
          requiredEnv: [],
          lazyInit: false,
          ...stored,
          name: '@perstack/base',
        },
      });
      const raw = await server.request<{ data: { expert: { integrity: string } } }>(
        'GET',
        `/api/registry/v1/experts/${encodeURIComponent(`${name}@1.0.0`)}`,
      );
      expect(raw.body.data.expert.integrity).toBe(integrity);
    }
  });

  it('a change through one face is seen at once through the other (one cache, invalidated per name)', async () => {
    const name = uniqueName('cache');
    await created(personalClient, cliPayload(name));
    expect((await anonymous.get(name)).ok).toBe(true); // cached on the Perstack face
    expect((await getExpert(server, name)).status).toBe(200); // and on the registry face
    const res = await server.request('POST', keyPath(`${name}@1.0.0`), {
      key: personal.ownerKey,
      body: { status: 'deprecated' },
    });
    expect(res.status, res.text).toBe(200);
    const after = await anonymous.get(name);
    expect(after.ok && after.data.status).toBe('deprecated');
    await personalClient.update(`${name}@1.0.0`, { tags: ['stable'] });
    expect((await getExpert(server, name)).body.data.expert.tags).toEqual(['latest', 'stable']);
  });

  it('answers with an ETag and 304 when the client has the answer', async () => {
    const name = uniqueName('etag');
    await published(server, personal.ownerKey, expertBody(name, '1.0.0', { minRuntimeVersion: '1.0.0' }));
    const path = `/api/registry/v1/experts/${encodeURIComponent(name)}`;
    const first = await server.request('GET', path);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"/);
    // The faces' answers differ here ("v1.0" against "1.0.0" as stored), and so do their ETags.
    expect(etag).not.toBe((await getExpert(server, name)).headers.get('etag'));
    const again = await server.request('GET', path, { headers: { 'if-none-match': etag as string } });
    expect(again.status).toBe(304);
  });
});

describe('the face itself', () => {
  it('answers unknown paths under it in the registry shape', async () => {
    for (const path of ['/api/registry/v1/nothing', '/api/registry/v1/experts/writer/delegators']) {
      expectRegistryError(await server.request('GET', path), 404);
    }
    // The management face keeps its own shape next to it.
    const management = await server.request<{ error: { code: string } }>('GET', '/api/v1/nothing');
    expect(management.status).toBe(404);
    expect(management.body.error.code).toBe('not_found');
  });

  it('refuses a malformed JSON body in the registry shape, and an empty one where a body is needed', async () => {
    const malformed = await server.request('POST', '/api/registry/v1/experts/', {
      key: personal.ownerKey,
      rawBody: '{"name":',
    });
    expectRegistryError(malformed, 400);
    const empty = await server.request('POST', '/api/registry/v1/experts/', {
      key: personal.ownerKey,
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    expectRegistryError(empty, 422);
  });

  it('resolves an Expert and its delegates, scoped and transitive, the way the runtime does', async () => {
    const leaf = `@${team.slug}/${uniqueName('leaf')}`;
    const middle = `@${team.slug}/${uniqueName('middle')}`;
    await created(
      teamClient,
      cliPayload(leaf, '1.0.0', {
        skills: {
          ask: {
            type: 'interactiveSkill',
            tools: { confirm: { description: 'Ask', inputJsonSchema: '{"type":"object"}' } },
          },
        },
      }),
    );
    await created(teamClient, cliPayload(middle, '1.0.0', { delegates: [`${leaf}@1.0.0`] }));
    const top = uniqueName('top');
    await created(personalClient, cliPayload(top, '1.0.0', { delegates: [middle] }));

    const runner = createPerstackClient(server.url); // the runtime reads without a key
    const resolved = await resolveDelegation(runner, [top]);
    expect([...resolved.keys()]).toEqual([top, middle, `${leaf}@1.0.0`]);
    expect(resolved.get(`${leaf}@1.0.0`)?.skills).toHaveProperty('ask');
    expect(resolved.get(`${leaf}@1.0.0`)?.skills).toHaveProperty(['@perstack/base']);
    // Every read went to the encoded key path with the JSON content type, as that client sends it.
    for (const request of runner.sent) {
      expect(request.url).toMatch(/\/api\/registry\/v1\/experts\/[^/]+$/);
      expect(request.headers['Content-Type']).toBe('application/json');
    }
    await expect(resolveDelegation(runner, ['no-such-expert-here'])).rejects.toThrow(
      'Failed to resolve delegate "no-such-expert-here": Not Found',
    );
  });
});

describe('rate limits apply to both faces, from one budget', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startServer({ rateLimits: { read: 100, write: 2, anonymousRead: 2, windowMs: 60_000 } });
  });
  afterAll(() => limited.close());

  it("counts an address's reads across the faces and answers 429 in the registry shape", async () => {
    expect((await limited.request('GET', '/registry/experts')).status).toBe(200);
    expect((await limited.request('GET', '/api/registry/v1/experts/')).status).toBe(200);
    const refused = await limited.request('GET', '/api/registry/v1/experts/');
    expectRegistryError(refused, 429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
  });

  it("counts a key's writes across the faces", async () => {
    const org = await createOrganization(limited, 'personal');
    const client = createPerstackClient(limited.url, org.ownerKey);
    const name = uniqueName('limited');
    expect((await client.create(cliPayload(name))).ok).toBe(true);
    const viaRegistry = await limited.request('POST', keyPath(`${name}@1.0.0`), {
      key: org.ownerKey,
      body: { status: 'deprecated' },
    });
    expect(viaRegistry.status, viaRegistry.text).toBe(200);
    expect(await client.update(`${name}@1.0.0`, { tags: ['stable'] })).toMatchObject({
      ok: false,
      error: { code: 429, message: expect.stringMatching(/^Too Many Requests: /) },
    });
  });
});
