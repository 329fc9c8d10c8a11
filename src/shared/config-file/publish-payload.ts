import {
  BASE_SKILL_KEY,
  baseSkillsIn,
  DEFAULT_BASE_SKILL,
  DEFAULT_BASE_SKILL_NAMES,
  type ExpertDefinition,
  expertDefinitionSchema,
} from '../expert/expert-definition.js';
import { own } from '../own.js';
import type { CadreConfig } from './schema.js';

/**
 * The POST /registry/experts body for one Expert of a validated config. `@service/base` is added
 * when the file defines no base skill under any accepted name (the registry requires one, and only
 * one: `@perstack/base` stays alone); `runtime` is a local setting the
 * publish payload has no field for. Parsing with the registry's own schema guarantees the result
 * is a payload the registry accepts.
 */
export function toPublishPayload(config: CadreConfig, name: string): ExpertDefinition {
  const expert = own(config.experts, name);
  if (!expert) throw new Error(`no Expert "${name}" in the config`);
  const skills =
    baseSkillsIn(expert.skills, DEFAULT_BASE_SKILL_NAMES).length > 0
      ? expert.skills
      : { [BASE_SKILL_KEY]: DEFAULT_BASE_SKILL, ...expert.skills };
  return expertDefinitionSchema.parse({
    name,
    version: expert.version,
    minRuntimeVersion: expert.minRuntimeVersion,
    description: expert.description,
    instruction: expert.instruction,
    skills,
    ...(expert.delegates.length > 0 ? { delegates: expert.delegates } : {}),
    ...(expert.tags.length > 0 ? { tags: expert.tags } : {}),
  });
}
