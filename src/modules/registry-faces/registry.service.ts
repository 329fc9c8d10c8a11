import { createPublish } from './publish.js';
import { createRecordChanges } from './record-changes.js';
import { createRegistryContext, type RegistryServiceDeps } from './registry-context.js';
import { createRegistryReads } from './registry-reads.js';

export type RegistryService = ReturnType<typeof createRegistryService>;

/**
 * The registry's operations as the faces, the operator and the publish policy's approvals use them, composed of
 * parts sharing one context (registry-context.ts): publishing (publish.ts), changes to published versions
 * (record-changes.ts) and the faces' cached reads (registry-reads.ts).
 */
export function createRegistryService(deps: RegistryServiceDeps) {
  const ctx = createRegistryContext(deps);
  return {
    ...createPublish(ctx),
    ...createRecordChanges(ctx),
    ...createRegistryReads(ctx),
    cache: ctx.cache,
    baseSkillNames: ctx.baseSkillNames,
  };
}
