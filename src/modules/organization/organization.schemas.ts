import { z } from 'zod';
import { paginationSchema } from '../../http/pagination.js';
import { grantSchema, PERMISSIONS } from '../auth/index.js';

const timestamp = z.iso.datetime().meta({ example: '2026-01-01T00:00:00.000Z' });
const role = z.enum(['owner', 'admin', 'member']);

export const meSchema = z
  .object({
    user: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
    organization: z.object({
      id: z.string(),
      slug: z.string(),
      name: z.string(),
      accountType: z.enum(['personal', 'personalPlus', 'team']),
    }),
    role,
    permissions: z.array(z.enum(PERMISSIONS)).meta({
      description: "What this credential may do: its grants ∩ the user's role (a session: the role)",
    }),
    grants: grantSchema
      .nullable()
      .meta({ description: "The API key's grants (their scope); null for a session" }),
    authentication: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('apiKey'), apiKeyId: z.string(), start: z.string() }),
      z.object({ kind: z.literal('session') }),
    ]),
  })
  .meta({ id: 'Me' });
export type Me = z.infer<typeof meSchema>;

const memberSchema = z
  .object({
    userId: z.string(),
    name: z.string().nullable(),
    email: z
      .string()
      .nullable()
      .meta({ description: 'Shown to owners and admins, and to each member for themselves; null otherwise' }),
    role,
    joinedAt: timestamp,
    lastActiveAt: timestamp.nullable().meta({
      description:
        'The latest console sign-in or API-key use in this organization. Shown to owners and admins, and to each member for themselves; null when never seen or not shown',
    }),
  })
  .meta({ id: 'Member' });
export type MemberRecord = z.infer<typeof memberSchema>;

export const projectSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    createdAt: timestamp,
    environments: z.array(z.object({ id: z.string(), name: z.string(), createdAt: timestamp })),
    agents: z.array(z.object({ id: z.string(), name: z.string(), createdAt: timestamp })),
  })
  .meta({ id: 'ProjectDetail' });
export type ProjectRecord = z.infer<typeof projectSchema>;

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(512).optional(),
});
export type PageQuery = z.infer<typeof pageQuery>;

export const memberListSchema = z.object({ data: z.array(memberSchema), pagination: paginationSchema });
export const projectListSchema = z.object({ data: z.array(projectSchema), pagination: paginationSchema });
export const orgParams = z.object({
  org: z.string().min(1).max(64).meta({ description: 'Organization id or slug' }),
});
