import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { createPerstackClient, type PerstackClient, type PublishInput } from '../support/perstack-client.js';
import { startServer, type TestServer } from '../support/server.js';
import { expertBody, getExpert, published, uniqueName } from './helpers.js';

// What Perstack's runtime needs from the Perstack-compatible face (docs/perstack.md "Skills as Perstack's
// runtime reads them", "Errors"): every record it serves passes the client's schemas with skills as strict as
// Perstack's core skill schema (test/support/perstack-client.ts: every defaulted field present, the base skill
// as @perstack/base), whatever was stored and through whichever face; refusals carry their reason in `error`.

let server: TestServer;
let personal: TestOrganization;
let other: TestOrganization;
let anonymous: PerstackClient;
let client: PerstackClient;

beforeAll(async () => {
  // An operator's own base-skill name beside the defaults: it is presented as @perstack/base too.
  server = await startServer({ baseSkillNames: ['acme-base'] });
  [personal, other] = await Promise.all([
    createOrganization(server, 'personal'),
    createOrganization(server, 'personal'),
  ]);
  anonymous = createPerstackClient(server.url);
  client = createPerstackClient(server.url, personal.ownerKey);
});
afterAll(() => server.close());

const stdio = (extra: Record<string, unknown> = {}) => ({
  type: 'mcpStdioSkill' as const,
  command: 'npx',
  ...extra,
});

function payload(name: string, skills: Record<string, unknown>, version = '1.0.0'): PublishInput {
  return {
    name,
    version,
    minRuntimeVersion: 'v1.0',
    description: '',
    instruction: `You are ${name}.`,
    skills,
    delegates: [],
    tags: ['latest'],
  };
}

/** Reads a key through every read of the face (each answer passes the client's strict schemas). */
async function readEverywhere(name: string, version = '1.0.0') {
  const byKey = await anonymous.get(`${name}@${version}`);
  expect(byKey, JSON.stringify(byKey)).toMatchObject({ ok: true });
  const latest = await anonymous.get(name);
  expect(latest.ok, JSON.stringify(latest)).toBe(true);
  const listed = await anonymous.list({ filter: name });
  expect(listed.ok, JSON.stringify(listed)).toBe(true);
  expect(listed.ok && listed.data.data.map((expert) => expert.key)).toContain(`${name}@${version}`);
  return byKey.ok ? byKey.data : undefined;
}

describe('every record passes Perstack’s complete skill shape', () => {
  it('a publish with no skills: the added base skill has every field the runtime reads', async () => {
    const name = uniqueName('bare');
    const answer = await client.create(payload(name, {}));
    expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true });
    const expert = await readEverywhere(name);
    expect(expert?.skills['@perstack/base']).toEqual({
      type: 'mcpStdioSkill',
      name: '@perstack/base',
      description: 'Base skill',
      command: 'npx',
      packageName: '@perstack/base',
      args: [],
      pick: [],
      omit: [],
      requiredEnv: [],
      lazyInit: false,
    });
  });

  it('a stdio skill with only command and packageName, an SSE skill with only an endpoint, interactive tools', async () => {
    const name = uniqueName('partial');
    const skills = {
      '@perstack/base': stdio({ packageName: '@perstack/base' }),
      fetcher: stdio({ packageName: '@example/fetch-mcp' }),
      search: { type: 'mcpSseSkill', endpoint: 'https://search.example.com/mcp' },
      ask: {
        type: 'interactiveSkill',
        tools: { confirm: { inputJsonSchema: '{"type":"object"}' } },
      },
    };
    const answer = await client.create(payload(name, skills));
    expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true });
    const expert = await readEverywhere(name);
    expect(expert?.skills).toMatchObject({
      fetcher: { name: 'fetcher', args: [], pick: [], omit: [], requiredEnv: [], lazyInit: false },
      search: { name: 'search', pick: [], omit: [] },
      ask: { name: 'ask', tools: { confirm: { name: 'confirm', inputJsonSchema: '{"type":"object"}' } } },
    });
    // The registry face returns the record as stored, not completed.
    expect((await getExpert(server, `${name}@1.0.0`)).body.data.expert.skills).toEqual(skills);
  });

  it.each([
    ['@service/base', 'Cadre’s'],
    ['acme-base', 'an operator’s (CADRE_BASE_SKILL_NAMES)'],
  ])(
    'a base skill stored as %s (%s) reads as @perstack/base; integrity stays the stored record’s',
    async (stored) => {
      const name = uniqueName('based');
      const base = stdio({ packageName: '@cadre/base', requiredEnv: ['HOME'] });
      const record = await published(
        server,
        personal.ownerKey,
        expertBody(name, '1.0.0', { minRuntimeVersion: 'v1.0', skills: { [stored]: base } }),
      );
      const expert = await readEverywhere(name);
      expect(expert?.skills).toEqual({
        '@perstack/base': { ...base, name: '@perstack/base', args: [], pick: [], omit: [], lazyInit: false },
      });
      const raw = await server.request<{ data: { expert: { integrity: string } } }>(
        'GET',
        `/api/registry/v1/experts/${encodeURIComponent(`${name}@1.0.0`)}`,
      );
      expect(raw.body.data.expert.integrity).toBe(record.integrity);
    },
  );
});

describe('the normalized shape: empty pick and omit together mean no filter', () => {
  const normalized = stdio({ packageName: '@example/fs', args: [], pick: [], omit: [], requiredEnv: [] });

  it('is accepted through both faces and read back as sent', async () => {
    const viaPerstack = uniqueName('norm');
    const answer = await client.create(
      payload(viaPerstack, { '@perstack/base': stdio({ packageName: '@perstack/base' }), fs: normalized }),
    );
    expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true });
    const viaRegistry = uniqueName('norm');
    const record = await published(
      server,
      personal.ownerKey,
      expertBody(viaRegistry, '1.0.0', {
        skills: { '@service/base': stdio({ packageName: '@cadre/base' }), fs: normalized },
      }),
    );
    expect(record.skills.fs).toEqual(normalized);
  });

  it('still refuses a non-empty pair: 422 on this face, the reason in `error` as Perstack’s CLI prints it', async () => {
    const result = await client.create(
      payload(uniqueName('both'), { fs: stdio({ packageName: 'fs', pick: ['read'], omit: ['write'] }) }),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(422);
    expect(result.error.message).toMatch(/^Validation Failed: .*skills\.fs\.omit: use either "pick"/);
    expect(String(result.error.reason)).toMatch(/skills\.fs\.omit: use either "pick"/);
  });
});

describe('refusals Perstack’s CLI can read', () => {
  it('another organization’s name is 400 (Perstack’s status), the reason in `error`', async () => {
    const name = uniqueName('taken');
    expect((await client.create(payload(name, {}))).ok).toBe(true);
    const result = await createPerstackClient(server.url, other.ownerKey).create(payload(name, {}, '2.0.0'));
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 400,
        message: `Bad Request: The name ${name} belongs to another organization`,
        reason: `The name ${name} belongs to another organization`,
      },
    });
    // The registry face keeps its own rule: 403.
    const res = await server.request('POST', '/registry/experts', {
      key: other.ownerKey,
      body: expertBody(name, '3.0.0'),
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'Forbidden' });
  });

  it('updating another organization’s Expert is 400 there, 403 on /registry', async () => {
    const name = uniqueName('theirs');
    expect((await client.create(payload(name, {}))).ok).toBe(true);
    const result = await createPerstackClient(server.url, other.ownerKey).update(`${name}@1.0.0`, {
      status: 'deprecated',
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 400, message: expect.stringMatching(/^Bad Request: .*another organization/) },
    });
  });

  it.each([
    ['a doubled slash (a base URL ending in "/")', '//api/registry/v1/experts/nope-at-all'],
    ['a doubled slash before an unknown path', '//api/registry/v1/nothing-here'],
    ['an unknown path', '/api/registry/v1/nothing-here'],
  ])('%s answers in this face’s shape', async (_, path) => {
    const res = await server.request('GET', path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      code: 404,
      error: expect.stringMatching(/^Not Found: /),
      reason: expect.any(String),
    });
  });

  it('a doubled slash reaches the face’s routes (Perstack’s client with a trailing slash in its base URL)', async () => {
    const name = uniqueName('slash');
    expect((await client.create(payload(name, {}))).ok).toBe(true);
    const doubled = createPerstackClient(`${server.url}/`);
    const result = await doubled.get(`${name}@1.0.0`);
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, data: { key: `${name}@1.0.0` } });
  });
});
