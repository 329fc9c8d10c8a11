import { z } from 'zod';

/**
 * The `pagination` object of every cursor-paged list the API answers (docs/organization-api.md, "Pages").
 * Its OpenAPI id (`Pagination`) is registered by the API keys' schemas, the first list the document
 * describes: /openapi.json orders its components by registration, so the id stays where it always was.
 */
export const paginationSchema = z.object({
  limit: z.number().int(),
  hasMore: z.boolean(),
  nextCursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `cursor` for the next page; null on the last.' }),
});
