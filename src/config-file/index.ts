export { DelegationCycleError, findDelegationCycle, publishOrder } from './delegation.js';
export type { Diagnostic, DiagnosticKind } from './diagnostics.js';
export { formatDiagnostics } from './format-diagnostics.js';
export { CONFIG_SCHEMA_ID, configJsonSchema } from './json-schema.js';
export { type ParseConfigResult, parseConfig } from './parse-config.js';
export { toPublishPayload } from './publish-payload.js';
export {
  type CadreConfig,
  CONFIG_DEFAULTS,
  configFileSchema,
  type ExpertConfig,
  expertConfigSchema,
  PROVIDER_NAMES,
  type ProviderName,
  providerSchema,
  RUNTIMES,
} from './schema.js';
export { SCHEMA_FILE_NAME, starterConfig } from './starter.js';
