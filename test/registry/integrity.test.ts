import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/shared/config-file/index.js';
import { JSON_SCHEMA_MAX_DEPTH } from '../../src/shared/expert/json-schema-check.js';
import { expectRegistryError } from '../support/assertions.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { baseSkill, type ExpertBody, expertBody, getExpert, publish, uniqueName } from './helpers.js';

let server: TestServer;
let org: TestOrganization;

beforeAll(async () => {
  server = await startServer();
  org = await createOrganization(server, 'personal');
});
afterAll(() => server.close());

describe('the publish answer is what is stored', () => {
  it('answers lone surrogates as U+FFFD, as a later GET reads them (description, instruction, skills)', async () => {
    const name = uniqueName();
    const body = expertBody(name, '1.0.0', {
      description: 'lone high \ud800 here',
      instruction: 'lone low \udc00 and a pair 😀',
      skills: {
        '@service/base': { ...baseSkill, description: 'skill \ud83d!', args: ['--x=\udfff'] },
        ask: {
          type: 'interactiveSkill',
          rule: 'r\ud800',
          tools: { ask: { description: 'd\udc00', inputJsonSchema: '{"description":"\ud800"}' } },
        },
      },
    });
    const res = await publish(server, org.ownerKey, body);
    expect(res.status, res.text).toBe(200);
    const stored = await getExpert(server, `${name}@1.0.0`);
    expect(stored.status).toBe(200);
    expect(res.body.data.expert).toEqual(stored.body.data.expert);
    type Skill = { description?: string; args?: string[]; rule?: string; tools?: Record<string, unknown> };
    const expert = res.body.data.expert as unknown as Record<string, unknown> & {
      skills: Record<string, Skill>;
    };
    expect(expert.description).toBe('lone high \ufffd here');
    expect(expert.instruction).toBe('lone low \ufffd and a pair 😀');
    expect(expert.skills['@service/base']?.description).toBe('skill \ufffd!');
    expect(expert.skills['@service/base']?.args).toEqual(['--x=\ufffd']);
    expect(expert.skills.ask?.rule).toBe('r\ufffd');
    expect(expert.skills.ask?.tools?.ask).toEqual({
      description: 'd\ufffd',
      inputJsonSchema: '{"description":"\ufffd"}',
    });
  });

  it('answers an update (status, tags) with the stored record too', async () => {
    const name = uniqueName();
    const publishRes = await publish(
      server,
      org.ownerKey,
      expertBody(name, '1.0.0', { description: 'x\ud800' }),
    );
    expect(publishRes.status).toBe(200);
    const updated = await server.request('POST', `/registry/experts/${name}@1.0.0`, {
      key: org.ownerKey,
      body: { status: 'deprecated', tags: ['stable'] },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual((await getExpert(server, `${name}@1.0.0`)).body);
  });
});

const interactive = (inputJsonSchema: string): ExpertBody['skills'] => ({
  '@service/base': baseSkill,
  ask: { type: 'interactiveSkill', tools: { ask: { inputJsonSchema } } },
});

describe(`inputJsonSchema nesting (at most ${JSON_SCHEMA_MAX_DEPTH} levels)`, () => {
  const nested = (depth: number) => `${'{"items":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

  it.each([
    ['3,000 levels of schemas', nested(3000), 'nested too deeply'],
    ['100,000 characters of "["', '['.repeat(100_000), 'not valid JSON'],
    [
      '100,000 balanced arrays',
      `{"items":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      'nested too deeply',
    ],
    [`${JSON_SCHEMA_MAX_DEPTH + 1} levels`, nested(JSON_SCHEMA_MAX_DEPTH + 1), 'nested too deeply'],
  ])('refuses %s with 400 and a message that says so', async (_label, schema, message) => {
    const res = await publish(
      server,
      org.ownerKey,
      expertBody(uniqueName(), '1.0.0', { skills: interactive(schema) }),
    );
    expectRegistryError(res, 400);
    expect((res.body as unknown as { reason: string }).reason).toContain(message);
    expect((res.body as unknown as { reason: string }).reason).not.toContain('$schema');
  });

  it(`accepts exactly ${JSON_SCHEMA_MAX_DEPTH} levels`, async () => {
    const res = await publish(
      server,
      org.ownerKey,
      expertBody(uniqueName(), '1.0.0', { skills: interactive(nested(JSON_SCHEMA_MAX_DEPTH)) }),
    );
    expect(res.status, res.text).toBe(200);
  });

  it('reports the same in cadre.toml (the same definition), and the TOML parser bounds its own nesting', () => {
    const toml = (schema: string) =>
      `[experts.writer]\ninstruction = "hi"\n[experts.writer.skills.ask]\ntype = "interactiveSkill"\n` +
      `[experts.writer.skills.ask.tools.ask]\ninputJsonSchema = '''${schema}'''\n`;
    const messages = (text: string) => {
      const result = parseConfig(text, { path: 'cadre.toml' });
      return result.ok ? [] : result.diagnostics.map((d) => d.message);
    };
    expect(messages(toml(nested(3000)))).toEqual([
      `inputJsonSchema is nested too deeply: at most ${JSON_SCHEMA_MAX_DEPTH} levels of objects and arrays`,
    ]);
    // Under the length bound, 60,000 '[' reach the JSON check without overflowing the stack; over it,
    // the length bound answers first.
    expect(messages(toml('['.repeat(60_000)))[0]).toContain('not valid JSON');
    expect(messages(toml('['.repeat(100_000)))[0]).toContain('at most 65536 characters');
    expect(messages(`x = ${'['.repeat(100_000)}`)[0]).toContain('excessively nested');
  });

  it('answers 400 (never 500) to a payload nested 100,000 levels outside inputJsonSchema', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const body = JSON.stringify(expertBody(uniqueName())).replace('"skills":', `"deep":${deep},"skills":`);
    const res = await server.request('POST', '/registry/experts', { key: org.ownerKey, rawBody: body });
    expectRegistryError(res, 400);
    const server2 = await server.request('GET', '/healthz');
    expect(server2.status).toBe(200);
  });
});
