import { z } from 'zod';
import {
  delegatesSchema,
  expertDefinitionBodySchema,
  expertUpdateSchema,
  LATEST_TAG,
  skillsSchema,
} from '../registry/index.js';

const SORTS = ['name', 'version', 'createdAt', 'updatedAt'] as const;

const intParam = (min: number, max: number | undefined, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(max === undefined ? z.number().int().min(min) : z.number().int().min(min).max(max))
    .optional()
    .transform((value) => value ?? fallback);

export const listExpertsQuery = z.object({
  organizationId: z.string().min(1).max(64).optional(),
  filter: z.string().max(511).optional(),
  q: z
    .string()
    .max(100)
    .optional()
    .meta({
      description:
        'search, any case: a name that starts with it, or whose part after its scope or a `-` / `_` does ' +
        '(`search` finds `web-search`), or a description that contains it',
      example: 'search',
    }),
  sort: z.enum(SORTS).optional(),
  order: z.enum(['asc', 'desc']).default('desc'),
  take: intParam(1, 100, 100).meta({ description: 'page size, 1 to 100', example: '100' }),
  skip: intParam(0, 1_000_000_000, 0).meta({ description: 'offset', example: '0' }),
});
export type ListExpertsQuery = z.infer<typeof listExpertsQuery>;

const timestamp = z.string().meta({ format: 'date-time', example: '2026-01-01T00:00:00.000Z' });

const ownerSchema = z
  .object({ name: z.string(), organizationId: z.string(), createdAt: timestamp })
  .meta({ id: 'ExpertOwner' });

const digestFields = {
  id: z.string(),
  key: z.string().meta({ example: 'writer@1.2.0' }),
  name: z.string(),
  version: z.string(),
  minRuntimeVersion: z.string(),
  description: z.string(),
  tags: z.array(z.string()).meta({ description: `custom tags, and "${LATEST_TAG}" on the latest version` }),
  owner: ownerSchema,
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const expertDigestSchema = z
  .object({ type: z.literal('expertDigest'), ...digestFields })
  .meta({ id: 'ExpertDigest' });

export const registryExpertSchema = z
  .object({
    type: z.literal('registryExpert'),
    ...digestFields,
    status: z.enum(['available', 'deprecated', 'disabled']),
    instruction: z.string(),
    skills: skillsSchema,
    delegates: delegatesSchema,
    integrity: z.string().meta({
      description:
        '`sha256-<base64>` of the RFC 8785 canonical JSON of name, version, minRuntimeVersion, description, ' +
        'instruction, skills and delegates as this record shows them (docs/registry.md "Integrity")',
      example: 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
    }),
    unavailableDelegates: z
      .array(z.object({ key: z.string(), reason: z.string() }))
      .optional()
      .meta({
        description:
          'Present when delegates name a version an operator took down: which ones, and the reason given',
      }),
    approval: z
      .object({
        id: z.string(),
        status: z.literal('pending'),
        previousVersion: z.string().nullable(),
        reasons: z.array(z.string()),
      })
      .optional()
      .meta({
        description:
          "Only in a publish answer, when the organization's policy holds `latest` back: the version widens " +
          'access over `previousVersion` (why, in `reasons`) and waits for a second owner or admin to approve ' +
          '(docs/registry.md "Publish policies")',
      }),
  })
  .meta({ id: 'RegistryExpert' });

const expertVersionSchema = z
  .object({
    type: z.literal('expertDigest'),
    id: z.string(),
    key: z.string(),
    name: z.string(),
    version: z.string(),
    tags: z.array(z.string()),
  })
  .meta({ id: 'ExpertVersion' });

export const expertAnswerSchema = z.object({ data: z.object({ expert: registryExpertSchema }) });

export const listMetaSchema = z.object({
  total: z.number().int(),
  take: z.number().int(),
  skip: z.number().int(),
});

export const expertListSchema = z.object({
  data: z.object({ experts: z.array(expertDigestSchema) }),
  meta: listMetaSchema,
});

export const expertVersionsSchema = z.object({
  data: z.object({ versions: z.array(expertVersionSchema), latest: z.string() }),
  meta: z.object({ total: z.number().int() }),
});

export const expertDelegatorsSchema = z.object({
  data: z.object({ experts: z.array(expertVersionSchema) }),
  meta: z.object({ total: z.number().int() }),
});

export const expertKeyParams = z.object({
  expertKey: z.string().meta({
    description:
      'Expert key `[@scope/]name[@version|tag]`; `@` and `/` may be sent URL-encoded (`%40`, `%2F`) or not',
    example: '@acme/writer@1.2.0',
  }),
});

export const publishExpertBody = expertDefinitionBodySchema.meta({ id: 'PublishExpert' });
export const updateExpertBody = expertUpdateSchema.meta({ id: 'UpdateExpert' });

export type ExpertDigest = z.infer<typeof expertDigestSchema>;
export type RegistryExpert = z.infer<typeof registryExpertSchema>;
export type ExpertVersion = z.infer<typeof expertVersionSchema>;

const expertKeyQueryValue = z.string().min(1).max(511);

export const diffExpertsQuery = z.object({
  from: expertKeyQueryValue.meta({ description: 'the older side: an Expert key', example: 'writer@1.0.0' }),
  to: expertKeyQueryValue.meta({
    description: 'the newer side: a key of the same name',
    example: 'writer@1.1.0',
  }),
});

const definitionChangeSchema = z
  .object({
    kind: z.enum(['added', 'removed', 'changed']),
    path: z
      .array(z.string())
      .meta({ description: 'the field: ["skills", "search", "endpoint"], ["delegates"]' }),
    before: z.unknown().optional(),
    after: z.unknown().optional(),
    widens: z
      .string()
      .optional()
      .meta({ description: 'why this change widens access; absent when it does not' }),
  })
  .meta({ id: 'DefinitionChange' });

const expertDiffSchema = z
  .object({
    from: z.string().meta({ description: 'the exact key compared from' }),
    to: z.string(),
    fromIntegrity: z.string(),
    toIntegrity: z.string(),
    widensAccess: z.boolean(),
    changes: z.array(definitionChangeSchema),
    instruction: z.object({
      changed: z.boolean(),
      linesAdded: z.number().int(),
      linesRemoved: z.number().int(),
      hunks: z.array(
        z.object({
          oldStart: z.number().int(),
          oldLines: z.number().int(),
          newStart: z.number().int(),
          newLines: z.number().int(),
          lines: z.array(z.string()),
        }),
      ),
    }),
  })
  .meta({ id: 'ExpertDiff' });

export const expertDiffAnswer = z.object({ data: z.object({ diff: expertDiffSchema }) });

export const dependentsQuery = z.object({
  key: expertKeyQueryValue.meta({
    description: 'the Expert key whose dependents to list',
    example: 'writer@1.0.0',
  }),
});

export const expertDependentsAnswer = z.object({
  data: z.object({
    key: z.string().meta({ description: 'the exact version asked about' }),
    dependents: z.array(
      z
        .object({
          key: z.string(),
          name: z.string(),
          version: z.string(),
          depth: z.number().int().meta({ description: '1: delegates to it directly' }),
          path: z
            .array(z.string())
            .meta({ description: 'from the dependent down to the version asked about' }),
          references: z.array(z.string()).meta({
            description:
              "each step of path as its delegate is written (one fewer than path): the exact key when pinned, or `name`, `name@latest`, `name@<tag>` when it floats onto the next step's version",
          }),
        })
        .meta({ id: 'ExpertDependent' }),
    ),
  }),
  meta: z.object({
    total: z.number().int(),
    truncated: z.boolean().meta({ description: 'true when more than the limit were found' }),
    depthLimit: z.number().int(),
    limit: z.number().int(),
  }),
});
