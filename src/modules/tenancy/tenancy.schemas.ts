import { z } from 'zod';

const slugSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(
    /^[a-z0-9][a-z0-9_-]*$/,
    'use lowercase letters, digits, "-" and "_", starting with a letter or digit',
  );
const timestamp = z.iso.datetime().meta({ example: '2026-01-01T00:00:00.000Z' });
const emailSchema = z
  .email()
  .max(254)
  .transform((email) => email.toLowerCase());

/** docs/admin-api.md, "Accounts and proven emails". */
const unverifiedAccountSchema = z
  .enum(['reset'])
  .optional()
  .meta({
    description:
      'reset: when the email belongs to an account that never proved it (made from a copied invitation link), ' +
      'end its password, sessions and API keys and use it; without it such an account is 409',
  });

const accountTypeSchema = z.enum(['personal', 'personalPlus', 'team']);
const roleSchema = z.enum(['owner', 'admin', 'member']);

export const organizationSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    accountType: accountTypeSchema,
    createdAt: timestamp,
  })
  .meta({ id: 'Organization' });
export const userSchema = z
  .object({ id: z.string(), email: z.string(), name: z.string().nullable(), createdAt: timestamp })
  .meta({ id: 'User' });
export const membershipSchema = z
  .object({ organizationId: z.string(), userId: z.string(), role: roleSchema, createdAt: timestamp })
  .meta({ id: 'Membership' });
export const projectSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    slug: z.string(),
    name: z.string(),
    createdAt: timestamp,
  })
  .meta({ id: 'Project' });
export const environmentSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    projectId: z.string(),
    name: z.string(),
    createdAt: timestamp,
  })
  .meta({ id: 'Environment' });
export const agentSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    projectId: z.string(),
    name: z.string(),
    createdAt: timestamp,
  })
  .meta({ id: 'Agent' });

export const createOrganizationBody = z
  .object({
    slug: slugSchema,
    name: z.string().trim().min(1).max(200),
    accountType: accountTypeSchema,
    owner: z
      .object({
        email: emailSchema,
        name: z.string().trim().min(1).max(200).optional(),
        unverifiedAccount: unverifiedAccountSchema,
      })
      .strict(),
  })
  .strict();
export const addMemberBody = z
  .object({
    email: emailSchema,
    name: z.string().trim().min(1).max(200).optional(),
    role: z.enum(['admin', 'member']),
    unverifiedAccount: unverifiedAccountSchema,
  })
  .strict();
export const createProjectBody = z
  .object({ slug: slugSchema, name: z.string().trim().min(1).max(200) })
  .strict();
export const createEnvironmentBody = z.object({ name: slugSchema }).strict();
export const createAgentBody = z.object({ name: z.string().trim().min(1).max(200) }).strict();
export const setPasswordBody = z.object({ password: z.string().min(12).max(1024) }).strict();

export type CreateOrganizationInput = z.infer<typeof createOrganizationBody>;
export type AddMemberInput = z.infer<typeof addMemberBody>;
