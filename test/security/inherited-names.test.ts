import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunnableDefinition } from '../../src/modules/supply-chain/integrity.js';
import { diffDefinitions } from '../../src/modules/supply-chain/version-diff.js';
import { publishOrder } from '../../src/shared/config-file/delegation.js';
import { parseConfig } from '../../src/shared/config-file/index.js';
import { baseSkill, expertBody, getExpert, uniqueName } from '../registry/helpers.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';

// No lookup by a name a user chose may read an inherited property (docs/registry.md "Names are data"): a
// skill, tool or Expert named like a member of Object.prototype (`constructor`, `toString`, `__proto__`…) is
// an ordinary name to the diff, the approval gate, cadre.toml and the publish order.

/** Every member of Object.prototype, `__proto__` included. */
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
/** Of them, those a skill name may be (a letter first). */
const PROTOTYPE_SKILL_NAMES = PROTOTYPE_NAMES.filter((name) => /^[a-zA-Z]/.test(name));

const toolName = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.stringMatching(/^[a-zA-Z0-9_-]{1,12}$/));
const names = (name: fc.Arbitrary<string>) => fc.uniqueArray(name, { maxLength: 6 });

const tool = { inputJsonSchema: '{"type":"object"}' };
/** A record with these own keys (Object.fromEntries defines `__proto__` as an own key, as JSON.parse does). */
const recordOf = <T>(keys: readonly string[], value: (key: string) => T): Record<string, T> =>
  Object.fromEntries(keys.map((key) => [key, value(key)]));

const definition = (tools: readonly string[], skills: readonly string[]): RunnableDefinition => ({
  name: 'writer',
  version: '1.0.0',
  minRuntimeVersion: 'v1.0',
  description: 'Writes',
  instruction: 'Write.',
  skills: {
    '@service/base': baseSkill,
    ...(tools.length > 0 ? { ask: { type: 'interactiveSkill', tools: recordOf(tools, () => tool) } } : {}),
    ...recordOf(skills, () => ({ type: 'mcpSseSkill' as const, endpoint: 'https://mcp.example.com/sse' })),
  },
  delegates: [],
});

describe('the diff over names', () => {
  it('sees every tool and skill added (widening) or removed, whatever its name', () => {
    fc.assert(
      fc.property(
        names(toolName),
        names(toolName),
        names(fc.constantFrom(...PROTOTYPE_SKILL_NAMES)),
        names(fc.constantFrom(...PROTOTYPE_SKILL_NAMES)),
        (toolsBefore, toolsAfter, skillsBefore, skillsAfter) => {
          const before = definition(['base', ...toolsBefore], skillsBefore);
          const after = definition(['base', ...toolsAfter], skillsAfter);
          const diff = diffDefinitions(before, after);
          const seen = (kind: string, path: string[]) =>
            diff.changes.filter((c) => c.kind === kind && JSON.stringify(c.path) === JSON.stringify(path));
          for (const name of toolsAfter.filter((t) => !toolsBefore.includes(t))) {
            const [change] = seen('added', ['skills', 'ask', 'tools', name]);
            expect(change?.widens).toBe(`skill "ask" gains the tool "${name}"`);
          }
          for (const name of toolsBefore.filter((t) => !toolsAfter.includes(t))) {
            expect(seen('removed', ['skills', 'ask', 'tools', name])).toHaveLength(1);
          }
          for (const name of skillsAfter.filter((s) => !skillsBefore.includes(s))) {
            const [change] = seen('added', ['skills', name]);
            expect(change?.widens).toBe(`new skill "${name}" (mcpSseSkill)`);
          }
          for (const name of skillsBefore.filter((s) => !skillsAfter.includes(s))) {
            expect(seen('removed', ['skills', name])).toHaveLength(1);
          }
          const added =
            toolsAfter.some((t) => !toolsBefore.includes(t)) ||
            skillsAfter.some((s) => !skillsBefore.includes(s));
          expect(diff.widensAccess).toBe(added);
          // Nothing that is in both is reported.
          const both = diff.changes.filter((c) => c.kind === 'changed');
          expect(both).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('cadre.toml over names', () => {
  const file = (skill: string, tool: string, delegate: string) => `
[experts.writer]
version = "1.0.0"
instruction = "Write."
delegates = [${JSON.stringify(delegate)}]

[experts.writer.skills.${JSON.stringify(skill)}]
type = "interactiveSkill"

[experts.writer.skills.${JSON.stringify(skill)}.tools.${JSON.stringify(tool)}]
inputJsonSchema = '{"type":"object"}'
`;

  it('keeps skills and tools named like Object.prototype members; a delegate so named is not in the file', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PROTOTYPE_SKILL_NAMES),
        toolName.filter((name) => name !== '__proto__'),
        fc.constantFrom('constructor', 'constructor@1.0.0', 'valueof', 'tostring@latest'),
        (skill, tool, delegate) => {
          const result = parseConfig(file(skill, tool, delegate), { path: 'cadre.toml' });
          if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
          const expert = result.config.experts.writer!;
          expect(Object.keys(expert.skills)).toEqual([skill]);
          const parsed = expert.skills[skill];
          expect(parsed?.type === 'interactiveSkill' && Object.keys(parsed.tools)).toEqual([tool]);
          // A delegate to a published Expert named like a prototype member is not an Expert of this file.
          expect(publishOrder(result.config)).toEqual(['writer']);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('every diagnostic about a value or key named like a prototype member is a sentence', () => {
    const files = (name: string) => [
      `[provider]\nproviderName = ${JSON.stringify(name)}\n[provider.setting]\nbaseUrl = "https://x.example"\n`,
      `[provider]\nproviderName = "anthropic"\n[provider.setting]\n${JSON.stringify(name)} = 1\n`,
      `${JSON.stringify(name)} = 1\n`,
      `[experts.writer]\ninstruction = "x"\n${JSON.stringify(name)} = 1\n`,
      `[experts.writer]\ninstruction = "x"\n[experts.writer.skills.s]\ntype = ${JSON.stringify(name)}\nunknownKey = 1\n`,
      `[experts.writer]\ninstruction = "x"\n[experts.writer.skills.${JSON.stringify(name)}]\ntype = "mcpStdioSkill"\n${JSON.stringify(name)} = 1\n`,
      `[experts.writer]\ninstruction = "x"\n[experts.writer.skills.s]\ntype = "interactiveSkill"\n[experts.writer.skills.s.tools.${JSON.stringify(name)}]\n${JSON.stringify(name)} = 1\n`,
      `[experts.${JSON.stringify(name)}]\nversion = 1\n`,
    ];
    for (const name of PROTOTYPE_NAMES) {
      for (const text of files(name)) {
        const result = parseConfig(text, { path: 'cadre.toml' });
        const diagnostics = result.ok ? result.warnings : result.diagnostics;
        for (const d of diagnostics) {
          expect(typeof d.message, text).toBe('string');
          expect(typeof d.hint, text).toBe('string');
          expect(`${d.message} ${d.hint}`, text).not.toMatch(/native code|function |\[object /);
        }
      }
    }
  });

  it('refuses a skill or tool named __proto__ (which JavaScript objects cannot hold as a name) instead of dropping it', () => {
    for (const [skill, tool] of [
      ['ask', '__proto__'],
      ['__proto__', 'ask'],
    ] as const) {
      const result = parseConfig(file(skill, tool, 'other'), { path: 'cadre.toml' });
      expect(result.ok, `${skill}/${tool}`).toBe(false);
      const messages = result.ok ? [] : result.diagnostics.map((d) => d.message);
      expect(messages.join('\n')).toContain('"__proto__"');
    }
  });
});

describe('the approval gate over names, on both registry faces', () => {
  let server: TestServer;
  let org: TestOrganization;

  beforeAll(async () => {
    server = await startServer();
    org = await createOrganization(server, 'personal');
    const res = await server.request('PUT', '/api/v1/organization/publish-policy', {
      key: org.ownerKey,
      body: { approvalRequiredForWidening: true },
    });
    expect(res.status, res.text).toBe(200);
  });
  afterAll(() => server.close());

  const faces = [
    ['/registry/experts', '0.1.0'],
    ['/api/registry/v1/experts', 'v1.0'],
  ] as const;
  const publishTo = (path: string, body: unknown) =>
    server.request<{ data: { expert: { tags: string[] } } }>('POST', path, { key: org.ownerKey, body });
  const interactive = (tools: readonly string[]) => ({
    type: 'interactiveSkill' as const,
    tools: recordOf(tools, () => tool),
  });

  it.each(faces)(
    '%s: a new tool or skill named like a prototype member waits for approval; the diff says it widens',
    async (path, runtime) => {
      for (const name of PROTOTYPE_NAMES.filter((n) => n !== '__proto__')) {
        const expert = uniqueName('proto');
        const v1 = expertBody(expert, '1.0.0', {
          minRuntimeVersion: runtime,
          skills: { '@service/base': baseSkill, ask: interactive(['ask']) },
        });
        expect((await publishTo(path, v1)).status).toBe(200);
        // 1.1.0 gains the tool `name`; 1.2.0 (compared with latest, still 1.0.0) gains a skill `name`.
        const withTool = {
          ...v1,
          version: '1.1.0',
          skills: { ...v1.skills, ask: interactive(['ask', name]) },
        };
        const gained = await publishTo(path, withTool);
        expect(gained.status, gained.text).toBe(200);
        expect((await getExpert(server, expert)).body.data.expert.version, name).toBe('1.0.0');
        const diff = await server.request<{ data: { diff: { widensAccess: boolean } } }>(
          'GET',
          `/registry/diff?from=${encodeURIComponent(`${expert}@1.0.0`)}&to=${encodeURIComponent(`${expert}@1.1.0`)}`,
        );
        expect(diff.body.data.diff.widensAccess, `${name}: ${diff.text}`).toBe(true);
        if (/^[a-zA-Z]/.test(name)) {
          const withSkill = {
            ...v1,
            version: '1.2.0',
            skills: {
              ...v1.skills,
              [name]: { type: 'mcpSseSkill', endpoint: 'https://mcp.example.com/sse' },
            },
          };
          expect((await publishTo(path, withSkill)).status).toBe(200);
          expect((await getExpert(server, expert)).body.data.expert.version, name).toBe('1.0.0');
        }
      }
    },
  );

  it.each(faces)(
    '%s: a name __proto__ in a body is refused with 400, never dropped',
    async (path, runtime) => {
      const expert = uniqueName('proto');
      const text = JSON.stringify(
        expertBody(expert, '1.0.0', {
          minRuntimeVersion: runtime,
          skills: { '@service/base': baseSkill, ask: interactive(['ask']) },
        }),
      ).replace('"tools":{"ask"', '"tools":{"__proto__":{"inputJsonSchema":"{}"},"ask"');
      const res = await server.request('POST', path, { key: org.ownerKey, rawBody: text });
      expect(res.status, res.text).toBe(400);
      expect((await getExpert(server, expert)).status).toBe(404);
    },
  );
});
