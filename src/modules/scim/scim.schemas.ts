import { z } from 'zod';

/**
 * SCIM request bodies (RFC 7643/7644). Providers send attributes Cadre does not keep (titles, addresses, the
 * enterprise extension): they are accepted and ignored, so objects are loose; what Cadre keeps is checked.
 */
const text = z.string().max(256);

export const userBody = z.looseObject({
  schemas: z.array(z.string()).optional(),
  userName: z.string().trim().min(1).max(254),
  externalId: text.nullish(),
  displayName: text.nullish(),
  name: z.looseObject({ givenName: text.nullish(), familyName: text.nullish() }).nullish(),
  emails: z.array(z.looseObject({ value: z.string().max(254), primary: z.boolean().optional() })).optional(),
  active: z.boolean().optional(),
});
export type UserBody = z.infer<typeof userBody>;

const memberRef = z.looseObject({ value: z.string().min(1).max(64) });
export type MemberRef = z.infer<typeof memberRef>;

export const groupBody = z.looseObject({
  schemas: z.array(z.string()).optional(),
  displayName: z.string().trim().min(1).max(256),
  externalId: text.nullish(),
  members: z.array(memberRef).max(1000).optional(),
});
export type GroupBody = z.infer<typeof groupBody>;

export const patchBody = z.looseObject({
  schemas: z.array(z.string()).optional(),
  Operations: z
    .array(
      z.looseObject({
        op: z.string().regex(/^(add|remove|replace)$/i, 'op must be add, remove or replace'),
        path: z.string().max(512).optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(100),
});
export type PatchOperation = z.infer<typeof patchBody>['Operations'][number];

export const listQuery = z.object({
  filter: z.string().max(1024).optional(),
  startIndex: z.coerce.number().int().optional(),
  count: z.coerce.number().int().optional(),
});
export type ListQuery = z.infer<typeof listQuery>;

export const resourceParams = z.object({ id: z.string().min(1).max(64) });

/** The SCIM token as the management API shows it: never the token after it was made. */
export const scimTokenSchema = z
  .object({
    tokenStart: z.string().meta({ description: 'The first characters, to tell tokens apart' }),
    createdAt: z.iso.datetime(),
    createdByUserId: z.string().nullable(),
  })
  .meta({ id: 'ScimToken' });
export const scimTokenWithSecretSchema = scimTokenSchema
  .extend({ token: z.string().meta({ description: 'The bearer token, shown once' }) })
  .meta({ id: 'ScimTokenWithSecret' });
