import { z } from 'zod';
import { paginationSchema } from '../../http/pagination.js';
import { membershipSchema, organizationSchema, userSchema } from '../tenancy/index.js';

const timestamp = z.iso.datetime().meta({ example: '2026-01-01T00:00:00.000Z' });
const invitedRole = z.enum(['admin', 'member']).meta({
  description: 'The role the invitee gets; never owner (the owner transfers the ownership instead)',
});
const emailSchema = z
  .email()
  .max(254)
  .transform((email) => email.toLowerCase());

export const orgParams = z.object({
  org: z.string().min(1).max(64).meta({ description: 'Organization id or slug' }),
});
export const memberParams = orgParams.extend({
  memberId: z.string().min(1).max(64).meta({ description: "The member's user id" }),
});
export const invitationParams = orgParams.extend({ invitationId: z.string().min(1).max(64) });
export const tokenParams = z.object({
  token: z.string().min(1).max(128).meta({ description: 'The invitation token (inv_…) from the link' }),
});

export const pageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().min(1).max(512).optional(),
  })
  .strict();
export type PageQuery = z.infer<typeof pageQuery>;

const INVITATION_STATES = ['pending', 'accepted', 'revoked', 'expired'] as const;

export const invitationSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    email: z.string(),
    role: invitedRole,
    state: z.enum(INVITATION_STATES),
    invitedByUserId: z.string().nullable(),
    createdAt: timestamp,
    expiresAt: timestamp,
    acceptedAt: timestamp.nullable(),
    acceptedByUserId: z.string().nullable(),
    revokedAt: timestamp.nullable(),
  })
  .meta({ id: 'Invitation' });
export type InvitationRecord = z.infer<typeof invitationSchema>;

export const createInvitationBody = z
  .object({
    email: emailSchema,
    role: invitedRole,
    expiresInDays: z
      .number()
      .int()
      .min(1)
      .max(30)
      .optional()
      .meta({ description: 'How long the link stays valid, in days (default 7)' }),
  })
  .strict()
  .meta({ id: 'CreateInvitationRequest' });
export type CreateInvitationInput = z.infer<typeof createInvitationBody>;

export const createdInvitationSchema = invitationSchema
  .extend({
    token: z.string().meta({ description: 'The capability token (inv_…): shown once, never again' }),
    url: z
      .string()
      .meta({ description: 'The invitation link, {consoleUrl}/invitations/{token}: shown once' }),
    emailStatus: z.enum(['sent', 'queued', 'failed', 'not_configured']).meta({
      description:
        'The invitation email (CADRE_SMTP_URL): sent; queued (the mail server had not finished within 5 s, ' +
        'Cadre goes on sending it); failed (the server refused or could not be reached); not_configured (no ' +
        'SMTP server). The link is in this answer whatever the outcome: unless sent, copy it to them',
    }),
    emailSent: z.boolean().meta({ description: 'emailStatus is sent' }),
  })
  .meta({ id: 'CreatedInvitation' });

export const invitationLinkSchema = invitationSchema
  .extend({
    token: z
      .string()
      .meta({ description: "The inviter's new copy of the token (inv_…): the previous copy stops working" }),
    url: z.string().meta({ description: 'The invitation link, {consoleUrl}/invitations/{token}' }),
  })
  .meta({ id: 'InvitationLink' });

export const invitationListSchema = z.object({
  data: z.array(invitationSchema),
  pagination: paginationSchema,
});

export const setMemberRoleBody = z.object({ role: z.enum(['admin', 'member']) }).strict();
export const transferOwnershipBody = z.object({ userId: z.string().min(1).max(64) }).strict();

export const removedMemberSchema = z
  .object({
    userId: z.string(),
    role: z.enum(['admin', 'member']),
    revokedApiKeyIds: z
      .array(z.string())
      .meta({ description: 'Their API keys in this organization, revoked' }),
    endedSessions: z
      .number()
      .int()
      .meta({ description: 'Their console sessions in this organization, ended' }),
    revokedInvitationIds: z
      .array(z.string())
      .meta({ description: 'The invitations they sent that were still pending, revoked' }),
  })
  .meta({ id: 'RemovedMember' });

export const ownershipSchema = z.object({ owner: membershipSchema, previousOwner: membershipSchema });

export const invitationPreviewSchema = z
  .object({
    organization: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
    email: z.string(),
    role: invitedRole,
    state: z.enum(INVITATION_STATES),
    message: z.string().meta({ description: 'The state in words, for the page to show' }),
    expiresAt: timestamp,
    account: z.enum(['new', 'existing']).meta({
      description:
        'existing: the email has a Cadre account, accept with its password (or signed in as that account); new: ' +
        'accept with a name and a password (no account has the email, or this is the mailed link and the ' +
        'account never proved its email: the password given takes it over unless it is its current one)',
    }),
  })
  .meta({ id: 'InvitationPreview' });

export const acceptInvitationBody = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'A new account: the name to show' }),
    password: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .meta({
        description:
          'A new account: the password to set (at least 12 characters); an existing one: its password, unless ' +
          'the request comes from a console session of that same account',
      }),
  })
  .strict()
  .meta({ id: 'AcceptInvitationRequest' });
export type AcceptInvitationInput = z.infer<typeof acceptInvitationBody>;

export const acceptedInvitationSchema = z
  .object({ user: userSchema, organization: organizationSchema, membership: membershipSchema })
  .meta({ id: 'AcceptedInvitation' });
