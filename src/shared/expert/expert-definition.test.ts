import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  acceptedBaseSkillNames,
  BASE_SKILL_KEY,
  baseSkillProblem,
  baseSkillsIn,
  DEFAULT_BASE_SKILL,
  DEFAULT_BASE_SKILL_NAMES,
  descriptionSchema,
  ExpertKeyError,
  expertDefinitionBodySchema,
  expertDefinitionSchema,
  expertNameSchema,
  expertUpdateSchema,
  formatExpertKey,
  INSTRUCTION_MAX_BYTES,
  instructionSchema,
  parseExpertKey,
  publishSkillsSchema,
  semverSchema,
  skillNameSchema,
  skillSchema,
  tagSchema,
  tagsSchema,
  tryParseExpertKey,
  utf8ByteLength,
} from './expert-definition.js';

const firstMessage = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues[0]?.message;

describe('expert names', () => {
  it.each(['writer', 'a', '0day', 'my_expert-2', '@acme/writer', '@a1/b-c_d'])('accepts %s', (name) => {
    expect(expertNameSchema.safeParse(name).success).toBe(true);
  });
  it.each([
    '',
    'Writer',
    '-writer',
    '_writer',
    'my expert',
    'my.expert',
    '@acme',
    '@acme/',
    '@/writer',
    '@Acme/writer',
    'acme/writer',
    '@acme/team/writer',
  ])('rejects %j', (name) => {
    expect(expertNameSchema.safeParse(name).success).toBe(false);
  });
  it('caps names at 255 characters', () => {
    expect(expertNameSchema.safeParse('a'.repeat(255)).success).toBe(true);
    expect(firstMessage(expertNameSchema.safeParse('a'.repeat(256)))).toMatch(/at most 255/);
  });
});

describe('versions', () => {
  it.each(['1.0.0', '0.0.0', '10.20.30', '1.0.0-beta.1', '1.0.0-rc.1'])('accepts %s', (v) => {
    expect(semverSchema.safeParse(v).success).toBe(true);
  });
  it.each(['1', '1.0', 'v1.0.0', ' 1.0.0', '1.0.0 ', '01.0.0', '1.0.0+build.1', 'latest', ''])(
    'rejects %j',
    (v) => {
      expect(semverSchema.safeParse(v).success).toBe(false);
    },
  );
});

describe('tags', () => {
  it('accepts custom tags and rejects latest, bad characters and over-long lists', () => {
    expect(tagSchema.safeParse('stable').success).toBe(true);
    expect(tagSchema.safeParse('beta_2-x').success).toBe(true);
    expect(firstMessage(tagSchema.safeParse('latest'))).toMatch(/assigned by the registry/);
    expect(tagSchema.safeParse('Beta').success).toBe(false);
    expect(tagSchema.safeParse('1.0.0').success).toBe(false);
    expect(tagSchema.safeParse('-x').success).toBe(false);
    const eight = Array.from({ length: 8 }, (_, i) => `t${i}`);
    expect(tagsSchema.safeParse(eight).success).toBe(true);
    expect(firstMessage(tagsSchema.safeParse([...eight, 't8']))).toMatch(/at most 8/);
    expect(firstMessage(tagsSchema.safeParse(['a', 'a']))).toMatch(/same tag twice/);
  });
});

describe('expert keys', () => {
  it.each([
    ['writer', { name: 'writer' }],
    ['writer@1.2.3', { name: 'writer', version: '1.2.3' }],
    ['writer@latest', { name: 'writer', tag: 'latest' }],
    ['writer@stable', { name: 'writer', tag: 'stable' }],
    ['writer@2.0.0-beta.1', { name: 'writer', version: '2.0.0-beta.1' }],
    ['@acme/writer', { name: '@acme/writer', scope: 'acme' }],
    ['@acme/writer@1.0.0', { name: '@acme/writer', scope: 'acme', version: '1.0.0' }],
    ['@acme/writer@latest', { name: '@acme/writer', scope: 'acme', tag: 'latest' }],
  ])('parses %s', (input, expected) => {
    expect(parseExpertKey(input)).toEqual(expected);
    expect(formatExpertKey(parseExpertKey(input))).toBe(input);
  });

  it.each([
    ['', /empty/],
    ['Writer', /Expert name "Writer"/],
    ['writer@', /neither a semantic version nor a tag/],
    ['writer@1.0', /neither/],
    ['writer@v1.0.0', /neither/],
    ['writer@1.0.0@2.0.0', /neither/],
    ['@acme@1.0.0', /Expert name "@acme"/],
  ])('rejects %j', (input, reason) => {
    const result = tryParseExpertKey(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
    expect(() => parseExpertKey(input)).toThrow(ExpertKeyError);
  });

  it('caps keys at 511 characters', () => {
    const name = 'n'.repeat(255);
    const tag = 't'.repeat(255);
    expect(tryParseExpertKey(`${name}@${tag}`).ok).toBe(true); // exactly 511
    expect(tryParseExpertKey(`${name}@${tag}x`)).toEqual({
      ok: false,
      reason: 'Expert key must be at most 511 characters',
    });
  });

  it('round-trips every valid key it parses (property)', () => {
    const segment = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,20}$/);
    const version = fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99)).map(([a, b, c]) => `${a}.${b}.${c}`);
    const key = fc
      .tuple(
        fc.option(segment, { nil: undefined }),
        segment,
        fc.option(fc.oneof(version, segment), { nil: undefined }),
      )
      .map(
        ([scope, name, ref]) =>
          `${scope === undefined ? '' : `@${scope}/`}${name}${ref === undefined ? '' : `@${ref}`}`,
      );
    fc.assert(
      fc.property(key, (k) => {
        const parsed = parseExpertKey(k);
        expect(formatExpertKey(parsed)).toBe(k);
        expect(parsed.version === undefined || parsed.tag === undefined).toBe(true);
      }),
    );
  });
});

describe('description and instruction limits', () => {
  it('counts description in characters', () => {
    expect(descriptionSchema.safeParse('é'.repeat(2048)).success).toBe(true); // 4096 bytes, 2048 chars
    expect(descriptionSchema.safeParse('a'.repeat(2049)).success).toBe(false);
  });
  it('counts instruction in UTF-8 bytes', () => {
    expect(instructionSchema.safeParse('a'.repeat(INSTRUCTION_MAX_BYTES)).success).toBe(true);
    expect(instructionSchema.safeParse('a'.repeat(INSTRUCTION_MAX_BYTES + 1)).success).toBe(false);
    // 10,241 two-byte characters: under 20,480 characters but 20,482 bytes.
    const wide = 'é'.repeat(10_241);
    expect(wide.length).toBeLessThan(INSTRUCTION_MAX_BYTES);
    expect(firstMessage(instructionSchema.safeParse(wide))).toMatch(/is 20482 bytes/);
    expect(instructionSchema.safeParse('é'.repeat(10_240)).success).toBe(true);
    expect(instructionSchema.safeParse('').success).toBe(false);
  });
});

describe('skills', () => {
  it('accepts each skill type with all of its fields', () => {
    const stdio = {
      type: 'mcpStdioSkill',
      description: 'd',
      rule: 'r',
      command: 'npx',
      packageName: '@x/y',
      args: ['-y'],
      pick: ['a'],
      requiredEnv: ['GITHUB_TOKEN'],
    };
    const sse = {
      type: 'mcpSseSkill',
      description: 'd',
      rule: 'r',
      endpoint: 'https://x.test/sse',
      omit: ['b'],
    };
    const interactive = {
      type: 'interactiveSkill',
      description: 'd',
      rule: 'r',
      tools: {
        ask_user: {
          description: 'q',
          inputJsonSchema: '{"type":"object","properties":{"q":{"type":"string"}}}',
        },
      },
    };
    for (const skill of [stdio, sse, interactive]) expect(skillSchema.parse(skill)).toEqual(skill);
  });

  it('requires the discriminator and each type its required field', () => {
    expect(skillSchema.safeParse({ command: 'npx' }).success).toBe(false);
    expect(skillSchema.safeParse({ type: 'mcpHttpSkill', command: 'npx' }).success).toBe(false);
    expect(skillSchema.safeParse({ type: 'mcpStdioSkill' }).success).toBe(false);
    expect(skillSchema.safeParse({ type: 'mcpSseSkill' }).success).toBe(false);
    expect(skillSchema.safeParse({ type: 'interactiveSkill' }).success).toBe(false);
    expect(firstMessage(skillSchema.safeParse({ type: 'interactiveSkill', tools: {} }))).toMatch(
      /at least one tool/,
    );
  });

  it('rejects unknown keys (fields of another skill type included)', () => {
    const result = skillSchema.safeParse({ type: 'mcpSseSkill', endpoint: 'https://x.test', command: 'npx' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.code).toBe('unrecognized_keys');
  });

  it('requires an http(s) endpoint for SSE skills', () => {
    for (const endpoint of ['http://127.0.0.1:8080/sse', 'https://mcp.example.com/sse']) {
      expect(skillSchema.safeParse({ type: 'mcpSseSkill', endpoint }).success).toBe(true);
    }
    for (const endpoint of ['ftp://x.test', 'localhost:8080', 'not a url', '']) {
      expect(skillSchema.safeParse({ type: 'mcpSseSkill', endpoint }).success).toBe(false);
    }
  });

  it('refuses pick and omit together, and bad env var names', () => {
    const both = { type: 'mcpStdioSkill', command: 'npx', pick: ['a'], omit: ['b'] };
    expect(firstMessage(skillSchema.safeParse(both))).toMatch(/either "pick"/);
    const sse = { type: 'mcpSseSkill', endpoint: 'https://mcp.example.com/sse', pick: ['a'], omit: ['b'] };
    expect(firstMessage(skillSchema.safeParse(sse))).toMatch(/either "pick"/);
    const env = { type: 'mcpStdioSkill', command: 'npx', requiredEnv: ['MY-TOKEN'] };
    expect(firstMessage(skillSchema.safeParse(env))).toMatch(/environment variable name/);
  });

  it('accepts the normalized shape: empty pick and omit together (no filter), or one of them empty', () => {
    const skills = [
      {
        type: 'mcpStdioSkill',
        command: 'npx',
        packageName: 'p',
        pick: [],
        omit: [],
        args: [],
        requiredEnv: [],
      },
      { type: 'mcpStdioSkill', command: 'npx', pick: ['a'], omit: [] },
      { type: 'mcpStdioSkill', command: 'npx', pick: [], omit: ['b'] },
      { type: 'mcpSseSkill', endpoint: 'https://mcp.example.com/sse', pick: [], omit: [] },
    ];
    for (const skill of skills) expect(skillSchema.safeParse(skill).success).toBe(true);
  });

  it.each([
    ['{not json', /not valid JSON/],
    ['[1,2]', /JSON object/],
    ['"string"', /JSON object/],
    ['{"type":"objekt"}', /not a valid JSON Schema/],
    ['{"properties":{"a":{"minLength":-1}}}', /minLength must be >= 0/],
    ['{"$schema":"https://example.com/my-meta","type":"object"}', /unsupported \$schema/],
  ])('rejects inputJsonSchema %s', (inputJsonSchema, reason) => {
    const skill = { type: 'interactiveSkill', tools: { t: { inputJsonSchema } } };
    expect(firstMessage(skillSchema.safeParse(skill))).toMatch(reason);
  });

  it('accepts draft-07 and 2020-12 inputJsonSchema documents', () => {
    for (const $schema of [
      'http://json-schema.org/draft-07/schema#',
      'https://json-schema.org/draft/2020-12/schema',
    ]) {
      const inputJsonSchema = JSON.stringify({ $schema, type: 'object' });
      expect(
        skillSchema.safeParse({ type: 'interactiveSkill', tools: { t: { inputJsonSchema } } }).success,
      ).toBe(true);
    }
  });

  it('requires an mcpStdioSkill base skill in publish payloads', () => {
    expect(publishSkillsSchema.safeParse({ [BASE_SKILL_KEY]: DEFAULT_BASE_SKILL }).success).toBe(true);
    expect(firstMessage(publishSkillsSchema.safeParse({}))).toBe(
      'must include a base skill: one of "@service/base", "@perstack/base"',
    );
    const sseBase = { [BASE_SKILL_KEY]: { type: 'mcpSseSkill', endpoint: 'https://x.test' } };
    const wrongType = publishSkillsSchema.safeParse(sseBase);
    expect(firstMessage(wrongType)).toBe('must be "mcpStdioSkill" for the base skill "@service/base"');
    expect(wrongType.error?.issues[0]?.path).toEqual([BASE_SKILL_KEY, 'type']);
  });

  it('accepts Perstack\'s "@perstack/base" as the base skill, under that name', () => {
    const skills = { '@perstack/base': DEFAULT_BASE_SKILL, search: DEFAULT_BASE_SKILL };
    expect(publishSkillsSchema.parse(skills)).toEqual(skills);
  });
});

describe('base-skill names', () => {
  const stdio = DEFAULT_BASE_SKILL;

  it("defaults to Cadre's and Perstack's; an operator adds names, never removes these", () => {
    expect(DEFAULT_BASE_SKILL_NAMES).toEqual(['@service/base', '@perstack/base']);
    expect(acceptedBaseSkillNames()).toEqual(DEFAULT_BASE_SKILL_NAMES);
    expect(acceptedBaseSkillNames(['@acme/base', '@service/base'])).toEqual([
      '@service/base',
      '@perstack/base',
      '@acme/base',
    ]);
    expect(Object.isFrozen(acceptedBaseSkillNames(['@acme/base']))).toBe(true);
  });

  it('finds the base skills a definition holds, in its order', () => {
    const skills = { other: stdio, '@perstack/base': stdio, '@service/base': stdio };
    expect(baseSkillsIn(skills, DEFAULT_BASE_SKILL_NAMES)).toEqual(['@perstack/base', '@service/base']);
    // Not a prototype property: only the definition's own keys count.
    expect(baseSkillsIn({}, ['constructor', 'toString'])).toEqual([]);
  });

  it('needs exactly one, an mcpStdioSkill, naming the accepted names when there is none', () => {
    const accepted = acceptedBaseSkillNames(['@acme/base']);
    expect(baseSkillProblem({ '@acme/base': stdio }, accepted)).toBeUndefined();
    expect(baseSkillProblem({ '@acme/base': stdio }, DEFAULT_BASE_SKILL_NAMES)?.message).toBe(
      'must include a base skill: one of "@service/base", "@perstack/base"',
    );
    expect(baseSkillProblem({ other: stdio }, accepted)).toEqual({
      path: [],
      message: 'must include a base skill: one of "@service/base", "@perstack/base", "@acme/base"',
    });
    expect(baseSkillProblem({ '@service/base': stdio, '@perstack/base': stdio }, accepted)).toEqual({
      path: [],
      message: 'must include only one base skill, has "@service/base", "@perstack/base"',
    });
    const sse = { type: 'mcpSseSkill' as const, endpoint: 'https://x.test' };
    expect(baseSkillProblem({ '@perstack/base': sse }, accepted)).toEqual({
      path: ['@perstack/base', 'type'],
      message: 'must be "mcpStdioSkill" for the base skill "@perstack/base"',
    });
  });

  it('an added name must be a skill name', () => {
    expect(skillNameSchema.safeParse('@acme/base').success).toBe(true);
    expect(skillNameSchema.safeParse('tools.v2_base-1').success).toBe(true);
    for (const bad of ['', 'has space', '/base', 'x'.repeat(256)]) {
      expect(skillNameSchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});

describe('expert definition and update payloads', () => {
  const valid = {
    name: '@acme/writer',
    version: '1.0.0',
    minRuntimeVersion: '0.0.0',
    description: 'Writes things',
    instruction: 'You write.',
    skills: { [BASE_SKILL_KEY]: DEFAULT_BASE_SKILL },
    delegates: ['@acme/editor@1.0.0', 'critic'],
    tags: ['stable'],
  };
  it("the route's body schema leaves the base skill to the service (its names are the operator's)", () => {
    const acmeBase = { ...valid, skills: { '@acme/base': DEFAULT_BASE_SKILL } };
    expect(expertDefinitionSchema.safeParse(acmeBase).success).toBe(false);
    expect(expertDefinitionBodySchema.parse(acmeBase)).toEqual(acmeBase);
    // Every other rule holds there as well.
    expect(expertDefinitionBodySchema.safeParse({ ...valid, runtime: 'cadre' }).success).toBe(false);
    expect(expertDefinitionBodySchema.safeParse({ ...valid, tags: ['latest'] }).success).toBe(false);
  });
  it('accepts a complete payload and rejects unknown and missing fields', () => {
    expect(expertDefinitionSchema.parse(valid)).toEqual(valid);
    expect(expertDefinitionSchema.safeParse({ ...valid, runtime: 'cadre' }).success).toBe(false);
    const { minRuntimeVersion: _omitted, ...missing } = valid;
    expect(expertDefinitionSchema.safeParse(missing).success).toBe(false);
    expect(expertDefinitionSchema.safeParse({ ...valid, delegates: ['Bad Key'] }).success).toBe(false);
    expect(expertDefinitionSchema.safeParse({ ...valid, delegates: ['a', 'a'] }).success).toBe(false);
    expect(expertDefinitionSchema.safeParse({ ...valid, tags: ['latest'] }).success).toBe(false);
  });
  it('update needs status or tags and accepts only known statuses', () => {
    expect(expertUpdateSchema.safeParse({ status: 'deprecated' }).success).toBe(true);
    expect(expertUpdateSchema.safeParse({ tags: [] }).success).toBe(true);
    expect(expertUpdateSchema.safeParse({}).success).toBe(false);
    expect(expertUpdateSchema.safeParse({ status: 'archived' }).success).toBe(false);
    expect(expertUpdateSchema.safeParse({ tags: ['latest'] }).success).toBe(false);
  });
});

describe('utf8ByteLength', () => {
  it('counts UTF-8 bytes as Node does, lone surrogates as U+FFFD', () => {
    for (const text of [
      '',
      'abc',
      'é',
      '€',
      '😀',
      'a😀b€é',
      '\ud800',
      'x\udc00y',
      '\ud800\ud800',
      'z\ud83d',
    ]) {
      expect(utf8ByteLength(text), JSON.stringify(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });
});
