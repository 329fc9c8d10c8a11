import { z } from 'zod';
import { paginationSchema } from '../../http/pagination.js';
import { grantSchema } from '../auth/index.js';

const timestamp = z.iso.datetime().meta({ example: '2026-01-01T00:00:00.000Z' });
const MIN_EXPIRES_IN = 60;
const MAX_EXPIRES_IN = 157_680_000; // five years

export const createApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional().meta({ example: 'ci-deploy' }),
    grants: grantSchema,
    expiresIn: z
      .number()
      .int()
      .min(MIN_EXPIRES_IN)
      .max(MAX_EXPIRES_IN)
      .optional()
      .meta({ description: 'Lifetime in seconds, counted from creation.', example: 2_592_000 }),
    expiresAt: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .meta({ description: 'Absolute expiry (must be in the future). null or absent: never expires.' }),
  })
  .strict()
  .refine((body) => !(body.expiresIn !== undefined && body.expiresAt != null), {
    message: 'give either expiresIn or expiresAt, not both',
    path: ['expiresAt'],
  })
  .meta({
    id: 'CreateApiKeyRequest',
    example: {
      name: 'ci-deploy',
      grants: { type: 'organization', permissions: ['experts:write'] },
      expiresIn: 2592000,
    },
  });
export type CreateApiKeyInput = z.infer<typeof createApiKeyBody>;

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    start: z.string().meta({ description: 'The first 12 characters of the key, for recognising it.' }),
    grants: grantSchema,
    userId: z.string(),
    organizationId: z.string(),
    createdAt: timestamp,
    expiresAt: timestamp.nullable(),
    lastUsedAt: timestamp
      .nullable()
      .meta({ description: 'Updated in batches: may lag real use by a few seconds.' }),
    revokedAt: timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().meta({ description: 'The secret. Shown only in this answer; store it now.' }) })
  .meta({ id: 'CreatedApiKey' });

export const apiKeyIdParams = z.object({ apiKeyId: z.string().min(1).max(64) });

export const listApiKeysQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().min(1).max(512).optional(),
  })
  .strict();

// The shared pagination shape takes its OpenAPI id here, after the key schemas (src/http/pagination.ts).
z.globalRegistry.add(paginationSchema, { id: 'Pagination' });

export const apiKeyListSchema = z.object({ apiKeys: z.array(apiKeySchema), pagination: paginationSchema });
export type ApiKeyRecord = z.infer<typeof apiKeySchema>;
