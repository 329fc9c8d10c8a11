/**
 * The single definition of an Expert's shape, shared by the registry (publish/update payloads)
 * and the `cadre.toml` configuration file, so that a file that validates locally is a payload the
 * registry accepts. docs/registry.md is the source of every rule here.
 */
import { z } from 'zod';
import { nestedDeeperThan } from '../nesting.js';
import {
  atMostChars,
  atMostItems,
  DEFINITION_LIMITS,
  delegatesSchema,
  descriptionSchema,
  expertNameSchema,
  instructionSchema,
  runtimeVersionSchema,
  semverSchema,
  tagsSchema,
  utf8ByteLength,
} from './expert-names.js';
import { checkJsonSchemaText } from './json-schema-check.js';

/** The base skill's name in Cadre's specification: the one `cadre publish` adds when a definition has none. */
export const BASE_SKILL_KEY = '@service/base';

/**
 * The names a base skill (the runtime's own tools, every Expert has one) may have: Cadre's, and Perstack's,
 * whose tools publish definitions with `@perstack/base` (docs/registry.md, "Base skill"). Stored as written.
 * An operator accepts more with CADRE_BASE_SKILL_NAMES; these stay accepted whatever it says.
 */
export const DEFAULT_BASE_SKILL_NAMES = ['@service/base', '@perstack/base'] as const;

export * from './expert-names.js';

const L = DEFINITION_LIMITS;
// Tool names are handed to LLM APIs, which accept only this alphabet and length.
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_NAME_ALPHABET = /^[a-zA-Z0-9_-]+$/;
// Skill names are map keys that also appear in keys like `@service/base`.
const SKILL_NAME_PATTERN = /^[a-zA-Z0-9@][a-zA-Z0-9@/._-]*$/;
const ENV_VAR_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Deepest nesting of objects and arrays a definition may have (a valid one has about six levels). */
const DEFINITION_MAX_DEPTH = 32;

// ---------------------------------------------------------------------------------------------
// Skills

type NamedRecordRules = {
  /** What a key is, as messages name it: "skill name". */
  name: string;
  maxLength: number;
  /** The alphabet of a name, without a length: a long name gets its own message, naming the limit. */
  alphabet: RegExp;
  alphabetMessage: string;
  /** The names' rules for JSON Schema (editors, OpenAPI), which sees no refinement. */
  propertyNames: { type: 'string'; maxLength?: number; pattern: string };
  maxEntries: number;
  /** What the entries are, as messages count them: "skills". */
  entries: string;
  emptyMessage?: string;
};

/**
 * A record of named entries (skills, tools) whose names and count are checked beside it, not as its key
 * schema: zod reports a bad key as a bare "Invalid key in record", drops the entry, and then skips the
 * record's own refinements, so one bad name would hide the count. Here every problem is reported at once,
 * each at its key's path with its limit; the JSON Schema still gets the names' rules as `propertyNames`.
 */
function namedRecord<V extends z.ZodType>(value: V, rules: NamedRecordRules) {
  return z
    .record(z.string(), value)
    .superRefine(
      (record, ctx) => {
        const names = Object.keys(record);
        for (const name of names) {
          if (name.length > rules.maxLength) {
            ctx.addIssue({
              code: 'custom',
              path: [name],
              message: `${rules.name} must be at most ${rules.maxLength} characters, is ${name.length}`,
              params: { invalidKey: true, maximum: rules.maxLength },
            });
          }
          if (!rules.alphabet.test(name)) {
            ctx.addIssue({
              code: 'custom',
              path: [name],
              message: rules.alphabetMessage,
              params: { invalidKey: true },
            });
          }
        }
        if (rules.emptyMessage !== undefined && names.length === 0) {
          ctx.addIssue({ code: 'custom', message: rules.emptyMessage });
        }
        if (names.length > rules.maxEntries) {
          ctx.addIssue({ code: 'custom', message: atMostItems(rules.maxEntries, rules.entries) });
        }
      },
      // Also when an entry's own fields are wrong (such issues stop plain refinements).
      {
        when: (payload) =>
          typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
      },
    )
    .meta({ propertyNames: rules.propertyNames });
}

/** A skill's name (a key of `skills`); also the form of every accepted base-skill name. */
export const skillNameSchema = z
  .string()
  .max(L.skillNameLength, atMostChars(L.skillNameLength))
  .regex(
    SKILL_NAME_PATTERN,
    'must be letters, digits, "@", "/", ".", "-" or "_", starting with a letter, digit or "@"',
  );

const toolNameList = z
  .array(
    z.string().min(1, 'tool names must not be empty').max(L.toolNameLength, atMostChars(L.toolNameLength)),
  )
  .max(L.listItems, atMostItems(L.listItems, 'entries'));

const skillCommon = {
  description: z.string().max(L.skillDescriptionLength, atMostChars(L.skillDescriptionLength)).optional(),
  rule: z.string().max(L.ruleLength, atMostChars(L.ruleLength)).optional(),
};

/**
 * pick is a whitelist and omit a blacklist of the server's tools; both filtering at once is contradictory.
 * An empty list filters nothing: `pick = []` beside `omit = []` is the normalized shape Perstack's tools
 * write (every field present), and means no filter.
 */
function pickOrOmit(
  skill: { pick?: string[] | undefined; omit?: string[] | undefined },
  ctx: z.RefinementCtx,
) {
  if (skill.pick?.length && skill.omit?.length) {
    ctx.addIssue({
      code: 'custom',
      path: ['omit'],
      message: 'use either "pick" (whitelist) or "omit" (blacklist), not both',
    });
  }
}

export const mcpStdioSkillSchema = z
  .strictObject({
    type: z.literal('mcpStdioSkill'),
    ...skillCommon,
    command: z.string().min(1, 'must not be empty').max(L.commandLength, atMostChars(L.commandLength)),
    packageName: z
      .string()
      .min(1, 'must not be empty')
      .max(L.packageNameLength, atMostChars(L.packageNameLength))
      .optional(),
    args: z
      .array(z.string().max(L.argLength, atMostChars(L.argLength)))
      .max(L.listItems, atMostItems(L.listItems, 'arguments'))
      .optional(),
    pick: toolNameList.optional(),
    omit: toolNameList.optional(),
    requiredEnv: z
      .array(
        z
          .string()
          .max(L.envNameLength, atMostChars(L.envNameLength))
          .regex(ENV_VAR_PATTERN, 'must be an environment variable name like "GITHUB_TOKEN"'),
      )
      .max(L.listItems, atMostItems(L.listItems, 'variables'))
      .optional(),
  })
  .superRefine(pickOrOmit);

export const mcpSseSkillSchema = z
  .strictObject({
    type: z.literal('mcpSseSkill'),
    ...skillCommon,
    endpoint: z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .max(L.endpointLength, atMostChars(L.endpointLength)),
    pick: toolNameList.optional(),
    omit: toolNameList.optional(),
  })
  .superRefine(pickOrOmit);

const inputJsonSchemaSchema = z
  .string()
  .max(L.inputJsonSchemaLength, atMostChars(L.inputJsonSchemaLength))
  .superRefine((text, ctx) => {
    const result = checkJsonSchemaText(text);
    if (!result.ok) ctx.addIssue({ code: 'custom', message: result.reason });
  });

export const interactiveToolSchema = z.strictObject({
  description: z.string().max(L.toolDescriptionLength, atMostChars(L.toolDescriptionLength)).optional(),
  inputJsonSchema: inputJsonSchemaSchema,
});

export const interactiveSkillSchema = z.strictObject({
  type: z.literal('interactiveSkill'),
  ...skillCommon,
  tools: namedRecord(interactiveToolSchema, {
    name: 'tool name',
    maxLength: L.toolNameLength,
    alphabet: TOOL_NAME_ALPHABET,
    alphabetMessage: 'tool names must be 1-64 letters, digits, "-" or "_"',
    propertyNames: { type: 'string', pattern: TOOL_NAME_PATTERN.source },
    maxEntries: L.toolsPerSkill,
    entries: 'tools',
    emptyMessage: 'an interactive skill needs at least one tool',
  }),
});

export const skillSchema = z.discriminatedUnion('type', [
  mcpStdioSkillSchema,
  mcpSseSkillSchema,
  interactiveSkillSchema,
]);

/** Skills as written in a config file: the base skill may be absent (the CLI adds it). */
export const skillsSchema = namedRecord(skillSchema, {
  name: 'skill name',
  maxLength: L.skillNameLength,
  alphabet: SKILL_NAME_PATTERN,
  alphabetMessage: 'skill names must be letters, digits, "@", "/", ".", "-" or "_"',
  propertyNames: { type: 'string', maxLength: L.skillNameLength, pattern: SKILL_NAME_PATTERN.source },
  maxEntries: L.skills,
  entries: 'skills',
});

/**
 * The whole definition's size bound, checked on what is stored (publish) and on each Expert of a file.
 * Checked even when other fields are wrong (`ALWAYS`), so a user learns of it with them, not after fixing them.
 */
export function checkDefinitionSize(definition: unknown, ctx: z.RefinementCtx): void {
  // A valid definition is a few levels deep; a body nested past the stack's reach (`[[[…]]]`, which JSON.parse
  // builds) is refused by depth first, since JSON.stringify would overflow on it.
  if (nestedDeeperThan(definition, DEFINITION_MAX_DEPTH)) {
    ctx.addIssue({
      code: 'custom',
      message: `the definition is nested too deeply: at most ${DEFINITION_MAX_DEPTH} levels of objects and arrays`,
    });
    return;
  }
  const bytes = utf8ByteLength(JSON.stringify(definition) ?? '');
  if (bytes > L.definitionBytes) {
    ctx.addIssue({
      code: 'custom',
      message: `the whole definition must be at most ${L.definitionBytes} bytes as JSON (256 KB), is ${bytes} bytes`,
    });
  }
}

/** Refinement options: run even when the object has other issues (zod skips refinements after those). */
export const ALWAYS = { when: () => true };

/** The accepted base-skill names: Cadre's defaults first, then an operator's `extra` (added, never replacing). */
export function acceptedBaseSkillNames(extra: readonly string[] = []): readonly string[] {
  return Object.freeze([...new Set<string>([...DEFAULT_BASE_SKILL_NAMES, ...extra])]);
}

/** The base skills `skills` holds: its keys that are accepted base-skill names, in the definition's order. */
export function baseSkillsIn(skills: Skills, acceptedNames: readonly string[]): string[] {
  return Object.keys(skills).filter((name) => acceptedNames.includes(name));
}

/** A definition's base-skill problem: where in `skills` (`[]`: the skills as a whole) and what. */
export interface BaseSkillProblem {
  path: string[];
  message: string;
}

/** Names as messages list them: `"@service/base", "@perstack/base"`. */
export const quotedNames = (names: readonly string[]) => names.map((name) => `"${name}"`).join(', ');

/**
 * Why `skills` cannot be published with these accepted base-skill names, or undefined. Exactly one base skill:
 * the runtime starts it for its own tools, and two (`@service/base` beside `@perstack/base`) would give an
 * Expert two sets of them. It must be an mcpStdioSkill: the runtime runs it as a local process.
 */
export function baseSkillProblem(
  skills: Skills,
  acceptedNames: readonly string[],
): BaseSkillProblem | undefined {
  const present = baseSkillsIn(skills, acceptedNames);
  const [name] = present;
  if (name === undefined) {
    return { path: [], message: `must include a base skill: one of ${quotedNames(acceptedNames)}` };
  }
  if (present.length > 1) {
    return { path: [], message: `must include only one base skill, has ${quotedNames(present)}` };
  }
  if (skills[name]?.type !== 'mcpStdioSkill') {
    return { path: [name, 'type'], message: `must be "mcpStdioSkill" for the base skill "${name}"` };
  }
  return undefined;
}

/** Skills of a publish payload with Cadre's default base-skill names (cadre.toml, the CLI, the playground). */
export const publishSkillsSchema = skillsSchema.superRefine((skills, ctx) => {
  const problem = baseSkillProblem(skills, DEFAULT_BASE_SKILL_NAMES);
  if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
});

// ---------------------------------------------------------------------------------------------
// The Expert definition as published (POST /registry/experts body).

const definitionFields = {
  name: expertNameSchema,
  version: semverSchema,
  minRuntimeVersion: runtimeVersionSchema,
  description: descriptionSchema,
  instruction: instructionSchema,
  skills: skillsSchema,
  delegates: delegatesSchema.optional(),
  tags: tagsSchema.optional(),
};

/** A complete definition, its base skill named as Cadre's defaults allow: what cadre.toml and the CLI produce. */
export const expertDefinitionSchema = z
  .strictObject({ ...definitionFields, skills: publishSkillsSchema })
  .superRefine(checkDefinitionSize, ALWAYS);

/**
 * The publish body as the route checks it: every rule but the base skill's name, which is the operator's to
 * extend (CADRE_BASE_SKILL_NAMES); the registry service checks it against the configured names.
 */
export const expertDefinitionBodySchema = z
  .strictObject(definitionFields)
  .superRefine(checkDefinitionSize, ALWAYS);

/** Body of POST /registry/experts/:key. At least one of the two fields. */
export const expertUpdateSchema = z
  .strictObject({
    status: z.enum(['available', 'deprecated', 'disabled']).optional(),
    tags: tagsSchema.optional(),
  })
  .refine((body) => body.status !== undefined || body.tags !== undefined, 'give "status", "tags" or both');

export type McpStdioSkill = z.infer<typeof mcpStdioSkillSchema>;
export type Skills = z.infer<typeof skillsSchema>;
export type ExpertDefinition = z.infer<typeof expertDefinitionSchema>;
export type ExpertUpdate = z.infer<typeof expertUpdateSchema>;
export type ExpertStatus = NonNullable<ExpertUpdate['status']>;

/** The base skill the CLI adds to a payload that does not define one. */
export const DEFAULT_BASE_SKILL: McpStdioSkill = {
  type: 'mcpStdioSkill',
  description: 'Base tools every Expert gets from the Cadre runtime',
  command: 'npx',
  packageName: '@cadre/base',
};

/**
 * The minRuntimeVersion of an Expert whose config file names none: runtime v1.0, the release Perstack's clients
 * understand (they accept `"v1.0"` and nothing else), so a default Expert is served on every face.
 */
export const DEFAULT_MIN_RUNTIME_VERSION = 'v1.0';
