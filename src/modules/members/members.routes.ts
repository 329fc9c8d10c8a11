import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { membershipSchema, presentMembership, presentOrganization, presentUser } from '../tenancy/index.js';
import type { InvitationLinksService } from './invitation-links.service.js';
import type { InvitationsService } from './invitations.service.js';
import {
  acceptedInvitationSchema,
  acceptInvitationBody,
  createdInvitationSchema,
  createInvitationBody,
  invitationLinkSchema,
  invitationListSchema,
  invitationParams,
  invitationPreviewSchema,
  invitationSchema,
  memberParams,
  orgParams,
  ownershipSchema,
  pageQuery,
  removedMemberSchema,
  setMemberRoleBody,
  tokenParams,
  transferOwnershipBody,
} from './members.schemas.js';
import type { MembersService } from './members.service.js';

const tags = ['Members'];
const config = { auth: 'principal' } as const;

/** The management API's member and invitation operations (owners and admins: `members:manage`). */
export function registerMemberRoutes(
  app: App,
  members: MembersService,
  invitations: InvitationsService,
): void {
  app.post('/v1/organizations/:org/invitations', {
    config,
    schema: {
      operationId: 'createInvitation',
      summary: 'Invite someone by email with a role; the answer carries the link (shown once)',
      tags,
      security: bearerSecurity,
      params: orgParams,
      body: createInvitationBody,
      response: { 201: dataOf(createdInvitationSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const invitation = await invitations.invite(
        requirePrincipal(request),
        request.params.org,
        request.body,
      );
      return reply.code(201).send({ data: invitation });
    },
  });

  app.get('/v1/organizations/:org/invitations', {
    config,
    schema: {
      operationId: 'listInvitations',
      summary: 'Pending invitations (not accepted, revoked or expired), oldest first; never their links',
      tags,
      security: bearerSecurity,
      params: orgParams,
      querystring: pageQuery,
      response: { 200: invitationListSchema, ...managementErrors(401, 403, 404, 422) },
    },
    handler: (request) =>
      invitations.listInvitations(requirePrincipal(request), request.params.org, request.query),
  });

  app.post('/v1/organizations/:org/invitations/:invitationId/link', {
    config,
    schema: {
      operationId: 'copyInvitationLink',
      summary:
        "A new copy of a pending invitation's link for the inviter (the previous copy stops working; the mailed link keeps working)",
      tags,
      security: bearerSecurity,
      params: invitationParams,
      response: { 200: dataOf(invitationLinkSchema), ...managementErrors(401, 403, 404, 410, 422) },
    },
    handler: async (request) => ({
      data: await invitations.copyInvitationLink(
        requirePrincipal(request),
        request.params.org,
        request.params.invitationId,
      ),
    }),
  });

  app.delete('/v1/organizations/:org/invitations/:invitationId', {
    config,
    schema: {
      operationId: 'revokeInvitation',
      summary: 'Revoke an invitation: its link no longer works (idempotent)',
      tags,
      security: bearerSecurity,
      params: invitationParams,
      response: { 200: dataOf(invitationSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => ({
      data: await invitations.revokeInvitation(
        requirePrincipal(request),
        request.params.org,
        request.params.invitationId,
      ),
    }),
  });

  app.put('/v1/organizations/:org/members/:memberId', {
    config,
    schema: {
      operationId: 'setMemberRole',
      summary: "Change a member's role (admin or member); their keys and sessions follow at once",
      tags,
      security: bearerSecurity,
      params: memberParams,
      body: setMemberRoleBody,
      response: { 200: dataOf(membershipSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => {
      const membership = await members.setRole(
        requirePrincipal(request),
        request.params.org,
        request.params.memberId,
        request.body.role,
      );
      return { data: presentMembership(membership) };
    },
  });

  app.delete('/v1/organizations/:org/members/:memberId', {
    config,
    schema: {
      operationId: 'removeMember',
      summary: 'Remove a member: their API keys are revoked and their sessions end, on every instance',
      tags,
      security: bearerSecurity,
      params: memberParams,
      response: { 200: dataOf(removedMemberSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => ({
      data: await members.remove(requirePrincipal(request), request.params.org, request.params.memberId),
    }),
  });

  app.post('/v1/organizations/:org/ownership-transfer', {
    config,
    schema: {
      operationId: 'transferOwnership',
      summary: 'The owner makes another member the owner and becomes an admin (atomic)',
      tags,
      security: bearerSecurity,
      params: orgParams,
      body: transferOwnershipBody,
      response: { 200: dataOf(ownershipSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => {
      const { owner, previousOwner } = await members.transferOwnership(
        requirePrincipal(request),
        request.params.org,
        request.body.userId,
      );
      return { data: { owner: presentMembership(owner), previousOwner: presentMembership(previousOwner) } };
    },
  });
}

/** The invitation link's own endpoints (auth face): whoever holds the token reads and accepts it. */
export function registerInvitationRoutes(app: App, links: InvitationLinksService): void {
  app.get('/invitations/:token', {
    config: { auth: 'public' },
    schema: {
      operationId: 'getInvitation',
      summary: 'What an invitation link is for: organization, role, email, state (in words)',
      tags,
      security: [],
      params: tokenParams,
      response: { 200: dataOf(invitationPreviewSchema), ...managementErrors(404, 422) },
    },
    handler: async (request) => ({ data: await links.preview(request.params.token) }),
  });

  app.post('/invitations/:token/accept', {
    // Public, or a console session of the invited account (which then needs no password, but its CSRF token).
    config: { auth: 'optional' },
    schema: {
      operationId: 'acceptInvitation',
      summary:
        'Accept an invitation once: a new account sets a name and password; an existing one gives its password or is signed in as it',
      tags,
      security: [{}, { consoleSession: [] }],
      params: tokenParams,
      body: acceptInvitationBody,
      response: {
        200: dataOf(acceptedInvitationSchema),
        ...managementErrors(401, 403, 404, 409, 410, 422),
      },
    },
    handler: async (request) => {
      const principal = request.principal;
      const { user, organization, membership } = await links.accept(
        request.params.token,
        request.body,
        principal?.kind === 'session' ? principal.userId : undefined,
      );
      return {
        data: {
          user: presentUser(user),
          organization: presentOrganization(organization),
          membership: presentMembership(membership),
        },
      };
    },
  });
}
