// The registry's public entry (the Expert records and their rules): what supply-chain, the registry's faces
// and the composition (src/app.ts) may use. Everything else in this folder is private to it (docs/architecture.md,
// "The registry, split by concern").

export {
  ALWAYS,
  acceptedBaseSkillNames,
  BASE_SKILL_KEY,
  baseSkillProblem,
  checkDefinitionSize,
  DEFAULT_BASE_SKILL,
  delegatesSchema,
  type ExpertDefinition,
  type ExpertUpdate,
  expertDefinitionBodySchema,
  expertDefinitionSchema,
  expertUpdateSchema,
  formatExpertKey,
  LATEST_TAG,
  type McpStdioSkill,
  mcpSseSkillSchema,
  mcpStdioSkillSchema,
  type ParsedExpertKey,
  parseExpertKey,
  runtimeVersionSchema,
  type Skills,
  skillNameSchema,
  skillsSchema,
  tagSchema,
  tagsSchema,
  tryParseExpertKey,
} from '../../shared/expert/expert-definition.js';
export { type Ecosystem, type Launch, launchOf } from '../../shared/expert/launcher.js';
export { expertAuditNames } from './audit-names.js';
export { type CachedAnswer, createRegistryReadCache, REGISTRY_CHANGED } from './registry.cache.js';
export * as repo from './registry.repo.js';
export { textArray } from './registry.repo.js';
export {
  type ExpertRecord,
  type ExpertRow,
  registryExperts,
  registryNames,
  registryTags,
} from './registry.tables.js';
export { createListReader, type ListExpertsQuery } from './registry-list.repo.js';
export { PERSTACK_RUNTIME_VERSION, runsOnV1_0 } from './runtime-line.js';
export { expertVersionsSource } from './usage.js';
