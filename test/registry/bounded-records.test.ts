import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/shared/config-file/index.js';
import { DEFINITION_LIMITS } from '../../src/shared/expert/expert-definition.js';
import { expectRegistryError } from '../support/assertions.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { baseSkill, expertBody, publish, uniqueName } from './helpers.js';

const L = DEFINITION_LIMITS;
const many = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i));

describe('a published definition is bounded in every part', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startServer();
    org = await createOrganization(server);
  });
  afterAll(() => server.close());

  const refused = async (extra: Parameters<typeof expertBody>[2], reason: RegExp) => {
    const res = await publish(server, org.ownerKey, expertBody(uniqueName(), '1.0.0', extra));
    expectRegistryError(res, 400);
    expect(res.body).toMatchObject({ reason: expect.stringMatching(reason) });
  };

  it('skills per Expert, tools per skill, list lengths and each string', async () => {
    const skills = Object.fromEntries(many(L.skills + 1, (i) => `s${i}`).map((name) => [name, baseSkill]));
    await refused({ skills: { ...skills, '@service/base': baseSkill } }, /at most 64 skills/);
    const tools = Object.fromEntries(
      many(L.toolsPerSkill + 1, (i) => `t${i}`).map((t) => [t, { inputJsonSchema: '{}' }]),
    );
    await refused(
      { skills: { '@service/base': baseSkill, ask: { type: 'interactiveSkill', tools } } },
      /at most 64 tools/,
    );
    const withArgs = { ...baseSkill, args: many(L.listItems + 1, (i) => `--a${i}`) };
    await refused({ skills: { '@service/base': withArgs } }, /at most 256 arguments/);
    const longArg = { ...baseSkill, args: ['x'.repeat(L.argLength + 1)] };
    await refused({ skills: { '@service/base': longArg } }, /at most 4096 characters/);
    const longCommand = { ...baseSkill, command: 'x'.repeat(L.commandLength + 1) };
    await refused({ skills: { '@service/base': longCommand } }, /at most 1024 characters/);
    const env = { ...baseSkill, requiredEnv: many(L.listItems + 1, (i) => `V${i}`) };
    await refused({ skills: { '@service/base': env } }, /at most 256 variables/);
    await refused({ delegates: many(L.delegates + 1, (i) => `d${i}`) }, /at most 64 delegates/);
  });

  it('a skill or tool name past its limit is named, with the limit, at its own path', async () => {
    const longSkill = 's'.repeat(L.skillNameLength + 45);
    const res = await publish(
      server,
      org.ownerKey,
      expertBody(uniqueName(), '1.0.0', { skills: { '@service/base': baseSkill, [longSkill]: baseSkill } }),
    );
    expectRegistryError(res, 400);
    expect(res.body).toMatchObject({
      reason: `Request validation failed: skills.${longSkill}: skill name must be at most 255 characters, is 300`,
    });
    const longTool = 't'.repeat(L.toolNameLength + 6);
    const ask = { type: 'interactiveSkill' as const, tools: { [longTool]: { inputJsonSchema: '{}' } } };
    await refused(
      { skills: { '@service/base': baseSkill, ask } },
      new RegExp(`skills\\.ask\\.tools\\.${longTool}: tool name must be at most 64 characters, is 70$`),
    );
  });

  it('every limit is reported at once: the skill count beside a bad skill name and a bad tool name', async () => {
    const skills = Object.fromEntries(many(L.skills, (i) => `s${i}`).map((name) => [name, baseSkill]));
    const ask = { type: 'interactiveSkill' as const, tools: { ['t'.repeat(70)]: { inputJsonSchema: '{}' } } };
    const res = await publish(
      server,
      org.ownerKey,
      expertBody(uniqueName(), '1.0.0', {
        skills: { ...skills, '@service/base': baseSkill, ['x'.repeat(300)]: baseSkill, ask },
      }),
    );
    expectRegistryError(res, 400);
    const { reason } = res.body as unknown as { reason: string };
    expect(reason).toMatch(/skills: must have at most 64 skills/);
    expect(reason).toMatch(/skill name must be at most 255 characters, is 300/);
    expect(reason).toMatch(/tool name must be at most 64 characters, is 70/);
  });

  it('the whole definition: at most 256 KB as JSON, though every part is within its own bound', async () => {
    const rule = 'r'.repeat(L.ruleLength);
    const skills = Object.fromEntries(many(40, (i) => `s${i}`).map((name) => [name, { ...baseSkill, rule }]));
    await refused({ skills: { ...skills, '@service/base': baseSkill } }, /at most 262144 bytes as JSON/);
    // Reported beside the definition's other problems, not only once they are fixed.
    await refused(
      { skills: { ...skills, '@service/base': baseSkill }, tags: 'blue' } as never,
      /tags[\s\S]*at most 262144 bytes as JSON|at most 262144 bytes as JSON[\s\S]*tags/,
    );
    // At the limits of each part, a definition of a realistic size is accepted.
    const res = await publish(
      server,
      org.ownerKey,
      expertBody(uniqueName(), '1.0.0', { skills: { '@service/base': { ...baseSkill, rule } } }),
    );
    expect(res.status, res.text).toBe(200);
  });

  it('cadre.toml enforces the same bounds', () => {
    const args = many(L.listItems + 1, (i) => `"--a${i}"`).join(', ');
    const text = `[experts.w]\ninstruction = "x"\n[experts.w.skills."@service/base"]\ntype = "mcpStdioSkill"\ncommand = "npx"\nargs = [${args}]\n`;
    const result = parseConfig(text, { path: 'cadre.toml' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.diagnostics.map((d) => [d.kind, d.path])).toEqual([
      ['limit', 'experts.w.skills."@service/base".args'],
    ]);
  });
});
