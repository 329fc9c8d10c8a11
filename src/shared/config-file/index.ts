export { DelegationCycleError, publishOrder } from './delegation.js';
export type { Diagnostic } from './diagnostics.js';
export { formatDiagnostics } from './format-diagnostics.js';
export { CONFIG_SCHEMA_ID, configJsonSchema } from './json-schema.js';
export { parseConfig } from './parse-config.js';
export { toPublishPayload } from './publish-payload.js';
export { type CadreConfig, PROVIDER_NAMES, type ProviderName } from './schema.js';
export { SCHEMA_FILE_NAME, starterConfig } from './starter.js';
