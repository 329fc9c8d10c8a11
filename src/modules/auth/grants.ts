import { z } from 'zod';

export const PERMISSIONS = [
  'api-keys:create',
  'api-keys:read',
  'api-keys:revoke',
  'billing:read',
  'billing:manage',
  'experts:write',
  'experts:delete',
  'projects:operate',
  'agents:run',
  'audit:read',
  'events:read',
  'members:read',
  'projects:read',
  'integrations:read',
  'projects:write',
  'integrations:manage',
  'organization:manage',
  'members:manage',
  'webhooks:manage',
  'publish-policy:read',
  'publish-policy:manage',
  'experts:approve',
  'mcp:read',
  'mcp:write',
] as const;

const permissionSchema = z.enum(PERMISSIONS);
export type Permission = z.infer<typeof permissionSchema>;

const idList = (what: string) =>
  z
    .array(z.string().min(1).max(64))
    .min(1, `at least one ${what} id is required`)
    .max(100)
    .refine((ids) => new Set(ids).size === ids.length, `${what} ids must be unique`);

const permissionList = <T extends readonly [string, ...string[]]>(allowed: T, scope: string) =>
  z
    .array(
      z.enum(allowed, {
        error: (issue) =>
          `permission ${JSON.stringify(issue.input)} is not valid on ${scope} grants; allowed: ${allowed.join(', ')}`,
      }),
    )
    .min(1, 'at least one permission is required')
    .refine((list) => new Set(list).size === list.length, 'permissions must be unique');

const SCOPED = ['projects:operate', 'projects:read', 'projects:write', 'agents:run'] as const;

const organizationGrantSchema = z
  .object({
    type: z.literal('organization'),
    permissions: permissionList(['*', ...PERMISSIONS], 'organization'),
  })
  .strict();
export const projectGrantSchema = z
  .object({
    type: z.literal('project'),
    projectIds: idList('project'),
    permissions: permissionList(SCOPED, 'project'),
  })
  .strict();
const agentGrantSchema = z
  .object({
    type: z.literal('agent'),
    agentIds: idList('agent'),
    permissions: permissionList(['agents:run'], 'agent'),
  })
  .strict();
const environmentGrantSchema = z
  .object({
    type: z.literal('environment'),
    environmentIds: idList('environment'),
    permissions: permissionList(SCOPED, 'environment'),
  })
  .strict();

/** Exactly one of four variants (docs/api-keys.md). */
export const grantSchema = z
  .discriminatedUnion('type', [
    organizationGrantSchema,
    projectGrantSchema,
    agentGrantSchema,
    environmentGrantSchema,
  ])
  .meta({ id: 'Grant', description: 'What an API key may do, and on which resources.' });

export type Grant = z.infer<typeof grantSchema>;
