/**
 * The shapes of the Perstack-compatible registry face (docs/perstack.md): the same records as the registry
 * face's, in the wire contract Perstack's own client validates. Requests are checked by the same rules as
 * `POST /registry/experts` (expert-definition.ts); the differences are the ones that client needs.
 */
import { z } from 'zod';
import {
  ALWAYS,
  checkDefinitionSize,
  expertDefinitionSchema,
  expertUpdateSchema,
  LATEST_TAG,
  PERSTACK_RUNTIME_VERSION,
  runsOnV1_0,
  runtimeVersionSchema,
  skillsSchema,
  tagSchema,
  tagsSchema,
} from '../registry/index.js';
import { perstackSkillsSchema } from './perstack.skills.js';
import { expertDigestSchema, listMetaSchema, registryExpertSchema } from './registry.schemas.js';

const runtime = z.literal(PERSTACK_RUNTIME_VERSION).meta({
  description: `always "${PERSTACK_RUNTIME_VERSION}": Experts that need a newer runtime are not served here`,
});

const perstackExpertSchema = registryExpertSchema
  .extend({ minRuntimeVersion: runtime, skills: perstackSkillsSchema })
  .meta({ id: 'PerstackRegistryExpert' });

const perstackDigestSchema = expertDigestSchema
  .extend({ minRuntimeVersion: runtime })
  .meta({ id: 'PerstackExpertDigest' });

export const perstackExpertAnswer = z.object({ data: z.object({ expert: perstackExpertSchema }) });

export const perstackListAnswer = z.object({
  data: z.object({ experts: z.array(perstackExpertSchema) }),
  meta: listMetaSchema,
});

export const perstackVersionsAnswer = z.object({
  data: z.object({ versions: z.array(perstackDigestSchema), latest: z.string() }),
  meta: z.object({ total: z.number().int() }),
});

export const perstackDeleteAnswer = z.object({}).meta({ description: 'Deleted: an empty JSON object' });

/**
 * Tags as that client sends them: `latest` may be among them (its CLI sends `["latest"]` on every publish);
 * every other tag follows the registry's rules, and the custom ones are counted without it.
 */
const perstackTagsSchema = z
  .array(
    z.string().superRefine((tag, ctx) => {
      if (tag === LATEST_TAG) return;
      const result = tagSchema.safeParse(tag);
      if (!result.success) ctx.addIssue({ code: 'custom', message: result.error.issues[0]?.message ?? '' });
    }),
  )
  .superRefine((tags, ctx) => {
    const custom = tagsSchema.safeParse(tags.filter((tag) => tag !== LATEST_TAG));
    for (const issue of custom.success ? [] : custom.error.issues) {
      if (issue.path.length === 0) ctx.addIssue({ code: 'custom', message: issue.message });
    }
  })
  .meta({ description: `custom tags; "${LATEST_TAG}" may be named (the registry assigns it)` });

/**
 * A publish: the registry's definition, with `latest` allowed among the tags, a runtime that must be v1.0's,
 * and no base skill required (this face adds Perstack's when none of the accepted ones is there).
 */
export const perstackPublishBody = z
  .strictObject({
    ...expertDefinitionSchema.shape,
    minRuntimeVersion: runtimeVersionSchema.refine(
      runsOnV1_0,
      `must need no newer runtime than ${PERSTACK_RUNTIME_VERSION} ("v1.0", "1.0.0", "0.x"); publish an ` +
        'Expert for a newer runtime through POST /registry/experts',
    ),
    skills: skillsSchema,
    tags: perstackTagsSchema.optional(),
  })
  .superRefine(checkDefinitionSize, ALWAYS)
  .meta({ id: 'PerstackPublishExpert' });

export const perstackUpdateBody = z
  .strictObject({ ...expertUpdateSchema.shape, tags: perstackTagsSchema.optional() })
  .refine((body) => body.status !== undefined || body.tags !== undefined, 'give "status", "tags" or both')
  .meta({ id: 'PerstackUpdateExpert' });
