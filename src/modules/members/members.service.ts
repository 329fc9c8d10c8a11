import { and, eq, gt, isNull } from 'drizzle-orm';
import type { ChangeBus } from '../../db/change-bus.js';
import { ApiError, forbidden, notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { apiKeys } from '../api-keys/index.js';
import { recordAuditEvent } from '../audit/index.js';
import type { Actor, Principal } from '../auth/index.js';
import { consoleSessions } from '../sessions/index.js';
import { MEMBERSHIP_CHANGED, memberships, organizations, type TenancyService } from '../tenancy/index.js';
import { invitations } from './invitations.tables.js';
import { manageableOrganization } from './manageable.js';

export interface MembersServiceDeps {
  bus: ChangeBus;
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization' | 'getMembership' | 'setRole' | 'transferOwnership'>;
}

export type MembersService = ReturnType<typeof createMembersService>;

/**
 * An organization's members in the management API (docs/organization-api.md, "Members and invitations"):
 * owners and admins change roles and remove members within the role ceilings; the owner transfers the
 * ownership; the identity provider deprovisions. Role changes and transfers are the tenancy service's own
 * operations. (Invitations: invitations.service.ts and invitation-links.service.ts.)
 */
export function createMembersService(deps: MembersServiceDeps) {
  const { bus, clock, tenancy } = deps;
  const manageable = (principal: Principal, idOrSlug: string) =>
    manageableOrganization(tenancy, principal, idOrSlug);

  async function memberOf(organizationId: string, userId: string) {
    const membership = await tenancy.getMembership(organizationId, userId);
    if (!membership) throw notFound(`Member ${userId}`);
    return membership;
  }

  /** The owner is never touched by anyone else; the owner itself changes its own place only by a transfer. */
  function guardOwner(principal: Principal, target: { role: string }, what: string) {
    if (target.role !== 'owner') return;
    if (principal.role !== 'owner') throw forbidden(`Only the owner may ${what} the owner`);
    throw new ApiError(
      'conflict',
      `The owner cannot be ${what === 'remove' ? 'removed' : 'demoted'}: transfer the ownership to another member first`,
    );
  }

  /**
   * Removes a member: in one transaction the membership goes, their API keys in this organization are
   * revoked, their console sessions here end and the invitations they sent that are still pending are
   * revoked; every instance has dropped their cached keys before the answer (the change bus), so from then on
   * both are refused everywhere. `guard` refuses a membership that may not be removed (under the lock).
   */
  async function removeMembership(
    organizationId: string,
    memberId: string,
    actor: Actor,
    guard: (membership: { role: string }) => void,
    extra: Record<string, string> = {},
  ) {
    return bus.commit(async (tx, publish) => {
      // The organization's row first, as an ownership transfer takes it: the two run one after the other.
      await tx
        .select({ id: organizations.id })
        .from(organizations)
        .where(eq(organizations.id, organizationId))
        .for('update');
      const [membership] = await tx
        .select()
        .from(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, memberId)))
        .for('update');
      if (!membership) throw notFound(`Member ${memberId}`);
      guard(membership);
      const role = membership.role as 'admin' | 'member';
      await tx
        .delete(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, memberId)));
      const now = clock.now();
      const revokedKeys = await tx
        .update(apiKeys)
        .set({ revokedAt: now })
        .where(
          and(
            eq(apiKeys.organizationId, organizationId),
            eq(apiKeys.userId, memberId),
            isNull(apiKeys.revokedAt),
          ),
        )
        .returning({ id: apiKeys.id });
      const ended = await tx
        .update(consoleSessions)
        .set({ revokedAt: now })
        .where(
          and(
            eq(consoleSessions.organizationId, organizationId),
            eq(consoleSessions.userId, memberId),
            isNull(consoleSessions.revokedAt),
          ),
        )
        .returning({ id: consoleSessions.id });
      const revokedApiKeyIds = revokedKeys.map((key) => key.id);
      // Their pending invitations go with them: a link an admin sent must not make anyone an admin after
      // that admin is gone. (Webhook endpoints and integrations belong to the organization and stay.)
      const revokedInvitations = await tx
        .update(invitations)
        .set({ revokedAt: now })
        .where(
          and(
            eq(invitations.organizationId, organizationId),
            eq(invitations.invitedByUserId, memberId),
            isNull(invitations.acceptedAt),
            isNull(invitations.revokedAt),
            gt(invitations.expiresAt, now),
          ),
        )
        .returning();
      for (const invitation of revokedInvitations) {
        await recordAuditEvent(tx, {
          organizationId: organizationId,
          action: 'invitation.revoked',
          actor,
          target: { type: 'invitation', id: invitation.id },
          at: now,
          metadata: { email: invitation.email, role: invitation.role, reason: 'inviter_removed' },
        });
      }
      const revokedInvitationIds = revokedInvitations.map((invitation) => invitation.id);
      const outcome = { revokedApiKeyIds, endedSessions: ended.length, revokedInvitationIds };
      await recordAuditEvent(tx, {
        organizationId: organizationId,
        action: 'membership.removed',
        actor,
        target: { type: 'user', id: memberId },
        at: now,
        metadata: { role, ...outcome, ...extra },
      });
      await publish({ topic: MEMBERSHIP_CHANGED, organizationId: organizationId, userId: memberId });
      return { userId: memberId, role, ...outcome };
    });
  }

  return {
    /** Within the ceilings: nobody but the owner touches the owner, and the owner's role moves only by a transfer. */
    async setRole(
      principal: Principal,
      organizationIdOrSlug: string,
      memberId: string,
      role: 'admin' | 'member',
    ) {
      const organization = await manageable(principal, organizationIdOrSlug);
      guardOwner(principal, await memberOf(organization.id, memberId), 'change the role of');
      await tenancy.setRole(organization.id, memberId, role, principal);
      return memberOf(organization.id, memberId);
    },

    /** Removes a member within the role ceilings (`removeMembership`, above). */
    async remove(principal: Principal, organizationIdOrSlug: string, memberId: string) {
      const organization = await manageable(principal, organizationIdOrSlug);
      guardOwner(principal, await memberOf(organization.id, memberId), 'remove');
      return removeMembership(organization.id, memberId, principal, (membership) =>
        guardOwner(principal, membership, 'remove'),
      );
    },

    /**
     * Deprovisioning by the organization's identity provider (SCIM, docs/scim.md): the member goes as by
     * `remove`, audited with `reason`. The owner is never deprovisioned this way: 409, transfer the
     * ownership first (a provider's mistake must not lock the organization out).
     */
    async deprovision(organizationId: string, userId: string, reason: 'scim') {
      return removeMembership(
        organizationId,
        userId,
        { kind: 'scim' },
        (membership) => {
          if (membership.role === 'owner')
            throw new ApiError(
              'conflict',
              'The owner cannot be deprovisioned: transfer the ownership to another member first',
            );
        },
        { reason },
      );
    },

    /**
     * The owner alone makes another member the owner; it becomes an admin (the tenancy service's transfer).
     * The credential's role is only a first filter: the transfer checks again, under the organization's lock,
     * that the caller is still the owner (two transfers at once: the second is refused, 403).
     */
    async transferOwnership(principal: Principal, organizationIdOrSlug: string, userId: string) {
      const organization = await manageable(principal, organizationIdOrSlug);
      if (principal.role !== 'owner') throw forbidden('Only the owner may transfer the ownership');
      return tenancy.transferOwnership(organization.id, userId, principal, { byOwner: principal.userId });
    },
  };
}
