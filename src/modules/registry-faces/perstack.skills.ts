/**
 * Skills as the Perstack-compatible face presents them (docs/perstack.md "Skills as Perstack's runtime reads
 * them"). Perstack's runtime reads a registry record's skills without applying its schema's defaults: it
 * iterates `requiredEnv`, reads `args`, `pick`, `omit` and `lazyInit` as they come, and finds the base skill
 * only under the name `@perstack/base`. So this face fills every defaulted field and names the base skill so,
 * whatever the stored record left out or named it; the `/registry` face returns what was stored, and the
 * integrity digest stays the stored record's on both.
 */
import { z } from 'zod';
import { mcpSseSkillSchema, mcpStdioSkillSchema, type Skills } from '../registry/index.js';

/** The base skill's name in Perstack's runtime: the only one it looks for. */
const PERSTACK_BASE_SKILL_NAME = '@perstack/base';

const names = z.array(z.string());
const named = { name: z.string().meta({ description: 'the skill name (its key), as the runtime reads it' }) };

const perstackStdioSkillSchema = z.strictObject({
  ...mcpStdioSkillSchema.shape,
  ...named,
  args: names,
  pick: names,
  omit: names,
  requiredEnv: names,
  lazyInit: z.boolean().meta({ description: 'always false: Cadre starts every skill with the run' }),
});

const perstackSseSkillSchema = z.strictObject({
  ...mcpSseSkillSchema.shape,
  ...named,
  // Stored endpoints were checked at publish; the answer only states the shape.
  endpoint: z.string(),
  pick: names,
  omit: names,
});

const perstackInteractiveSkillSchema = z.strictObject({
  type: z.literal('interactiveSkill'),
  ...named,
  description: z.string().optional(),
  rule: z.string().optional(),
  tools: z.record(
    z.string(),
    z.strictObject({ name: z.string(), description: z.string().optional(), inputJsonSchema: z.string() }),
  ),
});

export const perstackSkillsSchema = z
  .record(
    z.string(),
    z.discriminatedUnion('type', [
      perstackStdioSkillSchema,
      perstackSseSkillSchema,
      perstackInteractiveSkillSchema,
    ]),
  )
  .meta({
    id: 'PerstackSkills',
    description: `every defaulted field present, each skill and tool named by its key, the base skill as "${PERSTACK_BASE_SKILL_NAME}"`,
  });

type PerstackSkills = z.infer<typeof perstackSkillsSchema>;
type Skill = Skills[string];

function completeSkill(name: string, skill: Skill): PerstackSkills[string] {
  switch (skill.type) {
    case 'mcpStdioSkill':
      return {
        ...skill,
        name,
        args: skill.args ?? [],
        pick: skill.pick ?? [],
        omit: skill.omit ?? [],
        requiredEnv: skill.requiredEnv ?? [],
        lazyInit: false,
      };
    case 'mcpSseSkill':
      return { ...skill, name, pick: skill.pick ?? [], omit: skill.omit ?? [] };
    case 'interactiveSkill':
      return {
        ...skill,
        name,
        tools: Object.fromEntries(
          Object.entries(skill.tools).map(([toolName, tool]) => [toolName, { ...tool, name: toolName }]),
        ),
      };
  }
}

/**
 * A stored record's skills in the complete shape Perstack's runtime reads, the base skill (stored under any
 * accepted base-skill name: one per record, the registry's rule) under `@perstack/base`, order kept.
 */
export function presentPerstackSkills(skills: Skills, baseSkillNames: readonly string[]): PerstackSkills {
  return Object.fromEntries(
    Object.entries(skills).map(([stored, skill]) => {
      const name = baseSkillNames.includes(stored) ? PERSTACK_BASE_SKILL_NAME : stored;
      return [name, completeSkill(name, skill)];
    }),
  );
}
