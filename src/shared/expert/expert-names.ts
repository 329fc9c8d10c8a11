/**
 * The words of an Expert definition: names, versions, tags, description and instruction, their limits, and
 * Expert keys (`[@scope/]name[@version|tag]`). Split from expert-definition.ts, which builds skills and whole
 * definitions from these and re-exports them, so its users import one file.
 */
import semver from 'semver';
import { z } from 'zod';

export const LATEST_TAG = 'latest';

const EXPERT_NAME_MAX_LENGTH = 255;
const EXPERT_KEY_MAX_LENGTH = 511;
const TAG_MAX_LENGTH = 255;
const MAX_CUSTOM_TAGS = 8;
const DESCRIPTION_MAX_CHARS = 2048;
/** 20 KB measured in UTF-8 bytes, not characters: "é" counts 2, "😀" counts 4. */
export const INSTRUCTION_MAX_BYTES = 20 * 1024;

/**
 * Bounds on everything else a definition holds, so one record cannot be large enough to slow every reader
 * (docs/registry.md, "Limits"): far above what real definitions use (a few skills, a handful of arguments).
 */
export const DEFINITION_LIMITS = {
  skills: 64,
  skillNameLength: 255,
  toolsPerSkill: 64,
  delegates: 64,
  listItems: 256,
  argLength: 4096,
  commandLength: 1024,
  packageNameLength: 255,
  endpointLength: 2048,
  envNameLength: 255,
  toolNameLength: 64,
  ruleLength: 8192,
  skillDescriptionLength: 2048,
  toolDescriptionLength: 2048,
  inputJsonSchemaLength: 65_536,
  /** The whole definition as JSON, in UTF-8 bytes. */
  definitionBytes: 256 * 1024,
} as const;
const L = DEFINITION_LIMITS;
export const atMostChars = (n: number) => `must be at most ${n} characters`;
export const atMostItems = (n: number, what: string) => `must have at most ${n} ${what}`;

const EXPERT_NAME_PATTERN = /^(@[a-z0-9][a-z0-9_-]*\/)?[a-z0-9][a-z0-9_-]*$/;
const TAG_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

/** UTF-8 length without Buffer, so the same rules run in the console's browser playground. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      // A surrogate pair is one code point of 4 bytes; a lone surrogate encodes as U+FFFD (3 bytes).
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

export const expertNameSchema = z
  .string()
  .max(EXPERT_NAME_MAX_LENGTH, `must be at most ${EXPERT_NAME_MAX_LENGTH} characters`)
  .regex(
    EXPERT_NAME_PATTERN,
    'must be lowercase letters, digits, "-" or "_", optionally scoped as "@scope/name"',
  );

/**
 * SemVer 2.0 in canonical form. `semver.valid` alone would accept "v1.0.0" and " 1.0.0" and drop
 * build metadata; requiring the canonical echo rejects those, so two spellings never name one
 * version (and `1.0.0+a` / `1.0.0+b`, which have equal precedence, cannot both exist).
 */
export const semverSchema = z
  .string()
  .refine((v) => semver.valid(v) === v, 'must be a semantic version like "1.2.3" or "2.0.0-beta.1"');

/**
 * A runtime release as real definitions name it: `1.0.0`, `1.0`, `1`, with or without a leading `v`, with
 * an optional pre-release and build (`v2.1.0-beta.1`). Stored and returned exactly as given (docs/config.md).
 */
const RUNTIME_VERSION_MAX_LENGTH = 64;
const RUNTIME_VERSION_PATTERN =
  /^v?(0|[1-9]\d*)(\.(0|[1-9]\d*)){0,2}(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;
export const runtimeVersionSchema = z
  .string()
  .max(RUNTIME_VERSION_MAX_LENGTH, `must be at most ${RUNTIME_VERSION_MAX_LENGTH} characters`)
  .regex(RUNTIME_VERSION_PATTERN, 'must be a runtime version like "1.0.0", "1.0", "v1" or "v2.1.0-beta.1"');

export const tagSchema = z
  .string()
  .max(TAG_MAX_LENGTH, `must be at most ${TAG_MAX_LENGTH} characters`)
  .regex(TAG_PATTERN, 'must be lowercase letters, digits, "-" or "_"')
  .refine((t) => t !== LATEST_TAG, `"${LATEST_TAG}" is assigned by the registry and cannot be set`);

// The count is a refinement, not .max(): zod's length check would hide the per-tag errors.
export const tagsSchema = z
  .array(tagSchema)
  .refine(
    (tags) => tags.length <= MAX_CUSTOM_TAGS,
    `must have at most ${MAX_CUSTOM_TAGS} custom tags per version`,
  )
  .refine((tags) => new Set(tags).size === tags.length, 'must not contain the same tag twice')
  // Refinements are invisible to JSON Schema; state the same rules there for editors.
  .meta({ maxItems: MAX_CUSTOM_TAGS, uniqueItems: true });

export const descriptionSchema = z
  .string()
  .max(DESCRIPTION_MAX_CHARS, `must be at most ${DESCRIPTION_MAX_CHARS} characters`);

export const instructionSchema = z
  .string()
  .min(1, 'must not be empty')
  .superRefine((text, ctx) => {
    const bytes = utf8ByteLength(text);
    if (bytes > INSTRUCTION_MAX_BYTES) {
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${INSTRUCTION_MAX_BYTES} bytes of UTF-8 (20 KB), is ${bytes} bytes`,
      });
    }
  });

// ---------------------------------------------------------------------------------------------
// Expert keys: [@scope/]name[@version|tag]

export type ParsedExpertKey = {
  /** Full name, including the scope when there is one: `@acme/writer` or `writer`. */
  name: string;
  /** Scope without the `@` (an organization slug), when the name is scoped. */
  scope?: string;
  version?: string;
  /** A custom tag or `latest`. */
  tag?: string;
};

export type ExpertKeyResult = { ok: true; key: ParsedExpertKey } | { ok: false; reason: string };

export function tryParseExpertKey(input: string): ExpertKeyResult {
  if (input.length === 0) return { ok: false, reason: 'Expert key is empty' };
  if (input.length > EXPERT_KEY_MAX_LENGTH) {
    return { ok: false, reason: `Expert key must be at most ${EXPERT_KEY_MAX_LENGTH} characters` };
  }
  // A scoped key starts with "@", so the version separator is the first "@" after position 0.
  const at = input.indexOf('@', 1);
  const name = at === -1 ? input : input.slice(0, at);
  const suffix = at === -1 ? undefined : input.slice(at + 1);
  const nameCheck = expertNameSchema.safeParse(name);
  if (!nameCheck.success) {
    return {
      ok: false,
      reason: `Expert name "${name}" ${nameCheck.error.issues[0]?.message ?? 'is invalid'}`,
    };
  }
  const key: ParsedExpertKey = { name };
  if (name.startsWith('@')) key.scope = name.slice(1, name.indexOf('/'));
  if (suffix === undefined) return { ok: true, key };
  if (semver.valid(suffix) === suffix) {
    key.version = suffix;
  } else if (TAG_PATTERN.test(suffix) && suffix.length <= TAG_MAX_LENGTH) {
    key.tag = suffix;
  } else {
    return {
      ok: false,
      reason: `"${suffix}" after "@" is neither a semantic version nor a tag (lowercase letters, digits, "-", "_")`,
    };
  }
  return { ok: true, key };
}

export class ExpertKeyError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ExpertKeyError';
  }
}

/** Parses `[@scope/]name[@version|tag]`; throws ExpertKeyError (with a user-facing reason) otherwise. */
export function parseExpertKey(input: string): ParsedExpertKey {
  const result = tryParseExpertKey(input);
  if (!result.ok) throw new ExpertKeyError(result.reason);
  return result.key;
}

export function formatExpertKey(key: ParsedExpertKey): string {
  const ref = key.version ?? key.tag;
  return ref === undefined ? key.name : `${key.name}@${ref}`;
}

/** A string that is a valid Expert key (kept as the string; parse it with parseExpertKey). */
const expertKeySchema = z.string().superRefine((value, ctx) => {
  const result = tryParseExpertKey(value);
  if (!result.ok) ctx.addIssue({ code: 'custom', message: result.reason });
});

export const delegatesSchema = z
  .array(expertKeySchema)
  .max(L.delegates, atMostItems(L.delegates, 'delegates'))
  .refine((keys) => new Set(keys).size === keys.length, 'must not list the same Expert twice');
