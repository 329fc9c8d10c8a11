import { nestedDeeperThan } from '../nesting.js';
import { validateAgainstMetaSchema } from './meta-schema-validator.js';

/**
 * Deepest nesting of objects and arrays an `inputJsonSchema` may have (docs/registry.md). Real tool schemas
 * are a handful of levels deep; the bound keeps the meta-schema validation, which recurses once per level,
 * far from the stack's limit.
 */
export const JSON_SCHEMA_MAX_DEPTH = 64;

export type JsonSchemaCheck = { ok: true; schema: unknown } | { ok: false; reason: string };

/**
 * Checks that `text` holds a JSON Schema document: valid JSON (JSON.parse does not recurse, so any depth
 * parses safely), nested at most JSON_SCHEMA_MAX_DEPTH levels, and valid against the meta-schema named by
 * its `$schema` (2020-12 when absent, draft-07 also accepted).
 */
export function checkJsonSchemaText(text: string): JsonSchemaCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `is not valid JSON (${(error as Error).message})` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, reason: 'must be a JSON object holding a JSON Schema' };
  }
  if (nestedDeeperThan(parsed, JSON_SCHEMA_MAX_DEPTH)) {
    return {
      ok: false,
      reason: `is nested too deeply: at most ${JSON_SCHEMA_MAX_DEPTH} levels of objects and arrays`,
    };
  }
  let result: ReturnType<typeof validateAgainstMetaSchema>;
  try {
    result = validateAgainstMetaSchema(parsed);
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, reason: 'is too complex to check' };
    // Ajv throws when `$schema` names a meta-schema it does not know.
    const declared = String((parsed as Record<string, unknown>).$schema);
    return {
      ok: false,
      reason: `declares unsupported $schema "${declared}" (use JSON Schema 2020-12 or draft-07)`,
    };
  }
  if (!result.valid) {
    const details = result.errors
      .slice(0, 3)
      .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
      .join('; ');
    return { ok: false, reason: `is not a valid JSON Schema: ${details}` };
  }
  return { ok: true, schema: parsed };
}
