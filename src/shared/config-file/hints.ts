/** Wording for diagnostics: type names, examples, allowed keys and one-line fix hints. */

import {
  DEFAULT_BASE_SKILL_NAMES,
  DEFINITION_LIMITS,
  interactiveSkillSchema,
  interactiveToolSchema,
  mcpSseSkillSchema,
  mcpStdioSkillSchema,
  quotedNames,
} from '../expert/expert-definition.js';
import { own } from '../own.js';
import { configFileSchema, expertConfigSchema, PROVIDER_NAMES, providerSettingSchemas } from './schema.js';
import type { PathSegment } from './toml-locator.js';

const SKILL_KEYS: Record<string, string[]> = {
  mcpStdioSkill: Object.keys(mcpStdioSkillSchema.shape),
  mcpSseSkill: Object.keys(mcpSseSkillSchema.shape),
  interactiveSkill: Object.keys(interactiveSkillSchema.shape),
};

const PROVIDER_SETTING_KEYS: Record<string, string[]> = Object.fromEntries(
  PROVIDER_NAMES.map((name) => [name, Object.keys(providerSettingSchemas[name].shape)]),
);

function get(data: unknown, path: readonly PathSegment[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = Object.hasOwn(current, segment)
      ? (current as Record<PropertyKey, unknown>)[segment]
      : undefined;
  }
  return current;
}

/** Keys allowed in the table at `path` (discriminated tables use the discriminator in `data`). */
export function keysAt(path: readonly PathSegment[], data: unknown): string[] {
  const p = path.map(String);
  if (p.length === 0) return Object.keys(configFileSchema.shape);
  if (p.length === 1 && p[0] === 'provider') return ['providerName', 'setting'];
  if (p.length === 2 && p[0] === 'provider' && p[1] === 'setting') {
    return own(PROVIDER_SETTING_KEYS, String(get(data, ['provider', 'providerName']))) ?? [];
  }
  if (p[0] !== 'experts') return [];
  if (p.length === 2) return Object.keys(expertConfigSchema.shape);
  if (p.length === 4 && p[2] === 'skills')
    return own(SKILL_KEYS, String(get(data, [...path, 'type']))) ?? ['type'];
  if (p.length === 6 && p[4] === 'tools') return Object.keys(interactiveToolSchema.shape);
  return [];
}

const TOP_LEVEL_KEYS = Object.keys(configFileSchema.shape).filter((key) => key !== 'experts');
const EXPERT_KEYS = Object.keys(expertConfigSchema.shape);

/** The table a path names, as its header would be written: `[provider]`, `[experts."writer"]`. */
function header(path: readonly PathSegment[]): string {
  return `[${path.map((segment) => (/^[A-Za-z0-9_-]+$/.test(String(segment)) ? segment : JSON.stringify(segment))).join('.')}]`;
}

/**
 * When `key` is not allowed in the table at `parent` but belongs to another known table: the message and
 * hint that say where it goes. TOML puts every key written after a `[table]` header into that table, so a
 * top-level setting written below `[provider]` becomes `provider.<key>` — a mistake real files make often.
 */
export function misplacedKey(
  parent: readonly PathSegment[],
  key: string,
): { message: string; hint: string } | undefined {
  if (parent.length === 0) {
    if (key === 'providerName' || key === 'setting') {
      return {
        message: `"${key}" belongs in the [provider] table, not at the top level`,
        hint: `move it under a [provider] header`,
      };
    }
    if (EXPERT_KEYS.includes(key)) {
      return {
        message: `"${key}" is an Expert setting: at the top level Cadre ignores it`,
        hint: `to apply it, write it in each Expert's table, e.g. under [experts."<name>"]`,
      };
    }
    return undefined;
  }
  if (
    TOP_LEVEL_KEYS.includes(key) &&
    !(parent.length === 2 && parent[0] === 'experts' && EXPERT_KEYS.includes(key))
  ) {
    return {
      message: `"${key}" is a top-level setting, but it is written inside ${header(parent)}`,
      hint: `TOML puts every key after a [table] header into that table: move this line above the first table header`,
    };
  }
  const inSkill = parent.length === 4 && parent[0] === 'experts' && parent[2] === 'skills';
  if (inSkill && EXPERT_KEYS.includes(key) && key !== 'description') {
    return {
      message: `"${key}" is an Expert setting, but it is written inside the skill table ${header(parent)}`,
      hint: `move this line above the first [experts."${String(parent[1])}".skills.…] header`,
    };
  }
  return undefined;
}

/** "region is a setting of amazon-bedrock" when the key belongs to another provider. */
export function providerKeyOwner(
  parent: readonly PathSegment[],
  key: string,
  data: unknown,
): string | undefined {
  if (parent.join('.') !== 'provider.setting') return undefined;
  const owners = PROVIDER_NAMES.filter((name) => PROVIDER_SETTING_KEYS[name]?.includes(key));
  if (owners.length === 0) return undefined;
  const current = String(get(data, ['provider', 'providerName']));
  return `"${key}" is a setting of ${owners.join(', ')}, not of ${current}; remove it or change providerName`;
}

/** "endpoint belongs to mcpSseSkill" when the key belongs to another skill type. */
export function skillKeyOwner(
  parent: readonly PathSegment[],
  key: string,
  data: unknown,
): string | undefined {
  if (parent.length !== 4 || parent[2] !== 'skills') return undefined;
  const owners = Object.keys(SKILL_KEYS).filter((type) => SKILL_KEYS[type]?.includes(key));
  if (owners.length === 0) return undefined;
  const current = String(get(data, [...parent, 'type']));
  return `"${key}" is a field of ${owners.join(', ')}, not of ${current}; remove it or change type`;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean (true or false)',
  array: 'an array',
  object: 'a table',
  record: 'a table',
};

export function expectedName(expected: string | undefined): string {
  return expected === undefined ? 'a value' : (own(EXPECTED, expected) ?? expected);
}

/** The TOML name of what the user wrote. */
export function kindOfValue(value: unknown): string {
  if (typeof value === 'string')
    return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value)})`;
  if (typeof value === 'number')
    return Number.isInteger(value) ? `an integer (${value})` : `a float (${value})`;
  if (typeof value === 'boolean') return `a boolean (${value})`;
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Date) return 'a date-time';
  if (typeof value === 'object' && value !== null) return 'a table';
  return typeof value;
}

const EXAMPLES: Record<string, string> = {
  model: 'model = "claude-sonnet-4-5"',
  temperature: 'temperature = 0.3',
  maxSteps: 'maxSteps = 100',
  maxRetries: 'maxRetries = 5',
  timeout: 'timeout = 300000',
  envPath: 'envPath = [".env"]',
  providerName: 'providerName = "anthropic"',
  version: 'version = "1.0.0"',
  minRuntimeVersion: 'minRuntimeVersion = "1.0"',
  description: 'description = "What this Expert does"',
  instruction: 'instruction = """You are …"""',
  delegates: 'delegates = ["other-expert"]',
  runtime: 'runtime = ["cadre"]',
  tags: 'tags = ["stable"]',
  type: 'type = "mcpStdioSkill"',
  command: 'command = "npx"',
  endpoint: 'endpoint = "https://example.com/sse"',
  inputJsonSchema: `inputJsonSchema = '{"type": "object"}'`,
  useDeploymentBasedUrls: 'useDeploymentBasedUrls = true',
};

const GENERIC_EXAMPLE: Record<string, (key: string) => string> = {
  string: (k) => `${k} = "…"`,
  number: (k) => `${k} = 1`,
  int: (k) => `${k} = 1`,
  boolean: (k) => `${k} = true`,
  array: (k) => `${k} = ["…"]`,
  object: (k) => `a table [${k}] or ${k} = { … }`,
  record: (k) => `a table [${k}] or ${k} = { … }`,
};

export function exampleFor(path: readonly PathSegment[], expected: string | undefined): string {
  const last = path[path.length - 1];
  const key = typeof last === 'string' ? last : String(path[path.length - 2] ?? 'value');
  if (typeof last === 'number') {
    return expected === 'string' ? 'a quoted string, e.g. "…"' : `${expectedName(expected)}`;
  }
  const specific = own(EXAMPLES, key);
  if (specific && expected !== 'object' && expected !== 'record') return specific;
  return own(GENERIC_EXAMPLE, expected ?? 'string')?.(key) ?? `${key} = …`;
}

const BASE_SKILL_NAMES_TEXT = quotedNames(DEFAULT_BASE_SKILL_NAMES);

const FIELD_HINTS: Record<string, string> = {
  temperature: 'use a number from 0.0 to 1.0, e.g. temperature = 0.3',
  maxSteps: 'use a whole number of at least 1, e.g. maxSteps = 100',
  maxRetries: 'use a whole number of 0 or more, e.g. maxRetries = 5',
  timeout: 'give milliseconds as a whole number of at least 1, e.g. timeout = 300000',
  version: 'write a semantic version MAJOR.MINOR.PATCH, e.g. "1.0.0" or "2.0.0-beta.1"',
  minRuntimeVersion: 'write a runtime release: "1.0.0", "1.0", "v1" or "v2.1.0-beta.1"',
  description: 'shorten the description to 2048 characters',
  instruction: 'shorten it to 20480 bytes of UTF-8 (non-ASCII characters take 2 to 4 bytes each)',
  tags: 'use at most 8 distinct tags of lowercase letters, digits, "-" or "_"; "latest" is set by the registry',
  delegates: 'write Expert keys such as "writer", "writer@1.2.0" or "@acme/writer@stable", each once',
  runtime: 'use "cadre", "cursor", "claude-code" or "gemini", or an array of them',
  endpoint: 'write a full URL such as "https://mcp.example.com/sse"',
  baseUrl: 'write a full URL such as "https://api.example.com/v1"',
  inputJsonSchema: `write a JSON Schema document as a string, e.g. inputJsonSchema = '{"type": "object"}'`,
  requiredEnv: 'use environment variable names such as "GITHUB_TOKEN"',
  omit: 'keep either pick (tools to use) or omit (tools to hide), not both',
  tools: 'add at least one tool: [experts."<name>".skills."<skill>".tools."<tool>"]',
  type: `a base skill (${BASE_SKILL_NAMES_TEXT}) is run by the runtime itself: use type = "mcpStdioSkill"`,
  skills: `keep one base skill (${BASE_SKILL_NAMES_TEXT}) and remove the others: each gives the runtime's own tools`,
  'experts:key':
    'use lowercase letters, digits, "-" or "_", optionally "@scope/name"; put the version in version = "…"',
  'skills:key': 'use letters, digits, "@", "/", ".", "-" or "_" in skill names',
  'tools:key': 'use 1-64 letters, digits, "-" or "_" in tool names',
};

/**
 * Hints for a value past a bound (a `limit` diagnostic), by field: FIELD_HINTS say how to fix a value's
 * format, which would be the wrong advice here (`tools` there is "add at least one tool").
 */
const LIMIT_HINTS: Record<string, string> = {
  description: FIELD_HINTS.description!,
  instruction: FIELD_HINTS.instruction!,
  tags: FIELD_HINTS.tags!,
  tools: `split the tools over more than one interactive skill: each may have at most ${DEFINITION_LIMITS.toolsPerSkill}`,
  'experts:entry':
    "make the Expert smaller: shorten its instruction or its skills' rules and descriptions, or move skills to an Expert it delegates to",
  'skills:key': `shorten the skill name to at most ${DEFINITION_LIMITS.skillNameLength} characters`,
  'tools:key': `shorten the tool name to at most ${DEFINITION_LIMITS.toolNameLength} characters`,
};

/** What the generic hint calls an issue on a whole Expert, skill or tool (see `:entry` keys). */
const ENTRY_NAMES: Record<string, string> = {
  'experts:entry': 'the Expert',
  'skills:entry': 'the skill',
  'tools:entry': 'the tool',
};

function changeHint(field: string, message: string): string {
  return `change ${own(ENTRY_NAMES, field) ?? (field || 'the value')} so that it ${message.replace(/^must /, 'will ')}`;
}

export function fieldHint(field: string, message: string): string {
  return own(FIELD_HINTS, field) ?? changeHint(field, message);
}

export function limitHint(field: string, message: string): string {
  return own(LIMIT_HINTS, field) ?? changeHint(field, message);
}
