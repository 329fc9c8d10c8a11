import {
  BASE_SKILL_KEY,
  DEFAULT_BASE_SKILL,
  type ExpertDefinition,
  expertDefinitionSchema,
} from '../modules/registry/expert-definition.js';
import type { CadreConfig } from './schema.js';

/**
 * The POST /registry/experts body for one Expert of a validated config. The base skill is added
 * when the file does not define one (the registry requires it); `runtime` is a local setting the
 * publish payload has no field for. Parsing with the registry's own schema guarantees the result
 * is a payload the registry accepts.
 */
export function toPublishPayload(config: CadreConfig, name: string): ExpertDefinition {
  const expert = config.experts[name];
  if (!expert) throw new Error(`no Expert "${name}" in the config`);
  const skills =
    BASE_SKILL_KEY in expert.skills
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
