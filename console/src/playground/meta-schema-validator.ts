// The browser's stand-in for src/shared/expert/meta-schema-validator.ts (swapped in by vite.config.ts):
// the same Ajv meta-schemas, compiled at build time, with the same answers, so the playground reports what
// the registry would.
import { draft07, draft2020 } from 'virtual:json-meta-schemas';

export type MetaSchemaResult =
  | { valid: true }
  | { valid: false; errors: ReadonlyArray<{ instancePath: string; message?: string | undefined }> };

type Compiled = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string }> | null;
};

const DIALECTS: Record<string, Compiled> = {
  'https://json-schema.org/draft/2020-12/schema': draft2020,
  'http://json-schema.org/draft-07/schema': draft07,
};

export function validateAgainstMetaSchema(schema: object): MetaSchemaResult {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (declared !== undefined && typeof declared !== 'string') throw new Error('$schema must be a string');
  // Ajv ignores an empty fragment when it looks a meta-schema up.
  const validate =
    DIALECTS[
      declared === undefined ? 'https://json-schema.org/draft/2020-12/schema' : declared.replace(/#$/, '')
    ];
  if (!validate) throw new Error(`no schema with key or ref "${declared}"`);
  return validate(schema) ? { valid: true } : { valid: false, errors: validate.errors ?? [] };
}
