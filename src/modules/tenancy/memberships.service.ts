import { and, eq, or, sql } from 'drizzle-orm';
import { ApiError, forbidden, notFound } from '../../http/errors.js';
import type { Actor } from '../auth/index.js';
import type { AccountFor } from './accounts.js';
import { MEMBERSHIP_CHANGED } from './changes.js';
import type { OrganizationsService } from './organizations.service.js';
import type { TenancyServiceDeps } from './tenancy.deps.js';
import type { AddMemberInput } from './tenancy.schemas.js';
import { memberships, organizations } from './tenancy.tables.js';

/**
 * Memberships: adding a member, their role, and the one owner's transfer. Every change is audited, and a
 * changed role reaches every instance's cached API keys through the change bus.
 */
export function createMembershipsService({
  database,
  bus,
  clock,
  recordAudit: recordAuditEvent,
  accountFor,
  organizations: { getOrganization },
}: Pick<TenancyServiceDeps, 'database' | 'bus' | 'clock' | 'recordAudit'> & {
  accountFor: AccountFor;
  organizations: Pick<OrganizationsService, 'getOrganization'>;
}) {
  const { db } = database;

  return {
    async addMember(organizationIdOrSlug: string, input: AddMemberInput, actor: Actor = { kind: 'admin' }) {
      const organization = await getOrganization(organizationIdOrSlug);
      return bus.commit(async (tx, publish) => {
        const user = await accountFor(tx, publish, organization.id, input, 'unverifiedAccount', actor);
        const [membership] = await tx
          .insert(memberships)
          .values({ organizationId: organization.id, userId: user.id, role: input.role })
          .onConflictDoNothing()
          .returning();
        // The caller needs the existing member's id to change their role or give them a key.
        if (!membership)
          throw new ApiError(
            'conflict',
            `${input.email} is already a member of ${organization.slug} (user ${user.id})`,
            [{ path: 'userId', message: user.id }],
          );
        await recordAuditEvent(tx, {
          organizationId: organization.id,
          action: 'membership.created',
          actor,
          target: { type: 'user', id: user.id },
          at: clock.now(),
          metadata: { role: membership.role },
        });
        return { user, membership };
      });
    },

    /** How many members may approve a version (owners and admins). */
    async countApprovers(organizationId: string): Promise<number> {
      const [row] = await db
        .select({ total: sql<number>`count(*)::int` })
        .from(memberships)
        .where(
          and(
            eq(memberships.organizationId, organizationId),
            or(eq(memberships.role, 'owner'), eq(memberships.role, 'admin')),
          ),
        );
      return row?.total ?? 0;
    },

    async getMembership(organizationId: string, userId: string) {
      const [membership] = await db
        .select()
        .from(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)));
      return membership;
    },

    /**
     * Changing a role evicts cached API keys of that user on every instance: the change applies at once.
     * The owner's role changes only by an ownership transfer (an organization always has its one owner).
     */
    async setRole(organizationId: string, userId: string, role: 'admin' | 'member', actor: Actor) {
      await bus.commit(async (tx, publish) => {
        // The organization's row first, as an ownership transfer takes it: the two run one after the other.
        // (Locking the membership first deadlocks with a transfer: this audit insert's foreign key needs a
        // share lock on that row, which the transfer holds while it waits for this membership.)
        await tx
          .select({ id: organizations.id })
          .from(organizations)
          .where(eq(organizations.id, organizationId))
          .for('update');
        const [member] = await tx
          .select({ role: memberships.role })
          .from(memberships)
          .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
          .for('update');
        if (!member) throw notFound(`Member ${userId}`);
        if (member.role === 'owner') {
          throw new ApiError(
            'conflict',
            "The owner's role cannot be changed: transfer the ownership to another member first",
          );
        }
        await tx
          .update(memberships)
          .set({ role })
          .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)));
        await recordAuditEvent(tx, {
          organizationId,
          action: `membership.role_changed_to_${role}`,
          actor,
          target: { type: 'user', id: userId },
          at: clock.now(),
          metadata: { from: member.role, to: role },
        });
        await publish({ topic: MEMBERSHIP_CHANGED, organizationId, userId });
      });
    },

    /**
     * Makes `newOwnerId` (a member) the owner and the previous owner an admin, atomically: the
     * organization's row is locked first, so concurrent transfers run one after the other and exactly one
     * owner remains. Audited; both users' cached keys follow at once. Answers both memberships as this
     * transfer left them (a read after commit could already see a later transfer's).
     *
     * `byOwner` (the management API: the owner transfers): that user must still be the owner when the lock
     * is held; the role their credential carried was read before it, so a transfer that lost the race to
     * another transfer is refused (403) instead of taking the ownership from whoever holds it now.
     */
    async transferOwnership(
      organizationId: string,
      newOwnerId: string,
      actor: Actor,
      options: { byOwner?: string } = {},
    ) {
      return bus.commit(async (tx, publish) => {
        await tx
          .select({ id: organizations.id })
          .from(organizations)
          .where(eq(organizations.id, organizationId))
          .for('update');
        const members = await tx
          .select()
          .from(memberships)
          .where(
            and(
              eq(memberships.organizationId, organizationId),
              or(eq(memberships.role, 'owner'), eq(memberships.userId, newOwnerId)),
            ),
          )
          .for('update');
        const previous = members.find((member) => member.role === 'owner');
        if (!previous) throw new Error(`organization ${organizationId} has no owner`);
        if (options.byOwner !== undefined && previous.userId !== options.byOwner) {
          throw forbidden('Only the owner may transfer the ownership, and you are no longer the owner');
        }
        const next = members.find((member) => member.userId === newOwnerId);
        if (!next) throw notFound(`Member ${newOwnerId}`);
        if (previous.userId === newOwnerId) return { owner: next, previousOwner: next };
        const [demoted] = await tx
          .update(memberships)
          .set({ role: 'admin' })
          .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, previous.userId)))
          .returning();
        const [promoted] = await tx
          .update(memberships)
          .set({ role: 'owner' })
          .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, newOwnerId)))
          .returning();
        await recordAuditEvent(tx, {
          organizationId,
          action: 'organization.ownership_transferred_to',
          actor,
          target: { type: 'user', id: newOwnerId },
          at: clock.now(),
        });
        await recordAuditEvent(tx, {
          organizationId,
          action: 'organization.ownership_transferred_from',
          actor,
          target: { type: 'user', id: previous.userId },
          at: clock.now(),
        });
        for (const userId of [previous.userId, newOwnerId]) {
          await publish({ topic: MEMBERSHIP_CHANGED, organizationId, userId });
        }
        return { owner: promoted!, previousOwner: demoted! };
      });
    },
  };
}
