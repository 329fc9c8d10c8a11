import { z } from 'zod';
import { expertNameSchema } from '../expert/expert-definition.js';
import { configFileSchema } from './schema.js';

/** Where the published schema is expected to live; editors resolve `#:schema` against it. */
export const CONFIG_SCHEMA_ID = 'https://cadre.dev/schemas/cadre.toml.json';

/**
 * JSON Schema (2020-12) of cadre.toml, generated from the same zod schema the validator uses.
 * `io: 'input'` describes what a user writes: fields with defaults are optional, not required.
 * Refinements zod cannot express (SemVer, byte limits, JSON Schema strings) are checked only by
 * `cadre config validate`; the editor still gets types, enums, patterns and unknown-key errors.
 */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configFileSchema, {
    io: 'input',
    unrepresentable: 'any',
    // The validator checks Expert names beside the record (so a bad name hides nothing else); editors get
    // them as the record's property names.
    override: ({ jsonSchema, path }) => {
      if (path.length === 2 && path[0] === 'properties' && path[1] === 'experts') {
        jsonSchema.propertyNames = z.toJSONSchema(expertNameSchema, { io: 'input' });
        delete (jsonSchema.propertyNames as Record<string, unknown>).$schema;
      }
    },
  });
  return { ...schema, $id: CONFIG_SCHEMA_ID };
}
