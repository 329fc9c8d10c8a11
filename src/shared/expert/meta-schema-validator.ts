import { Ajv2020 } from 'ajv/dist/2020.js';
import draft07MetaSchema from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };

/**
 * Validates a JSON Schema document against the meta-schema its `$schema` names (2020-12 when absent,
 * draft-07 also known). Throws an Error for an unknown `$schema` and a RangeError when it recurses too deep.
 * The web console's playground swaps this module for one with the same meta-schemas compiled at build time
 * (console/vite.config.ts), since a browser page under its Content-Security-Policy may not compile code.
 */
export type MetaSchemaResult =
  | { valid: true }
  | { valid: false; errors: ReadonlyArray<{ instancePath: string; message?: string | undefined }> };

// One validator per process: building Ajv and compiling its meta-schemas is the expensive part,
// and validateSchema keeps no state between calls that matters to us (we read only its return).
let ajv: Ajv2020 | undefined;

function validator(): Ajv2020 {
  if (!ajv) {
    // 2020-12 is the default dialect (what MCP tool schemas use); draft-07 is still what most
    // hand-written tool schemas declare, so its meta-schema is registered as well.
    ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addMetaSchema(draft07MetaSchema);
  }
  return ajv;
}

export function validateAgainstMetaSchema(schema: object): MetaSchemaResult {
  const v = validator();
  return v.validateSchema(schema) ? { valid: true } : { valid: false, errors: v.errors ?? [] };
}
