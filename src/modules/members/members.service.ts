import { and, asc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { ChangeBus } from '../../db/change-bus.js';
import type { Database } from '../../db/client.js';
import { ApiError, forbidden, notFound, tooManyRequests } from '../../http/errors.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../http/keyset-cursor.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { cursorPage } from '../../lib/page.js';
import { randomBase62, safeEqual, sha256Hex } from '../../lib/secrets.js';
import { apiKeys } from '../api-keys/index.js';
import { recordAuditEvent } from '../audit/index.js';
import type { Actor } from '../auth/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import { consoleSessions, type GuessBudget } from '../sessions/index.js';
import {
  MEMBERSHIP_CHANGED,
  memberships,
  type Organization,
  organizations,
  type TenancyService,
  users,
} from '../tenancy/index.js';
import { accountOf, admission } from './acceptance.js';
import { invitations } from './invitations.tables.js';
import { DEFAULT_MAIL_ANSWER_MS, type Mailer, type MailStatus, sendWithin } from './mailer.js';
import type {
  AcceptInvitationInput,
  CreateInvitationInput,
  InvitationRecord,
  PageQuery,
} from './members.schemas.js';

const TOKEN_PATTERN = /^inv_[0-9A-Za-z]{43}$/;
const DAY_MS = 86_400_000;
const DEFAULT_INVITATION_DAYS = 7;
/** Password attempts an invitation link takes for one account (with its wrong sign-ins) before it refuses more. */
const MAX_PASSWORD_FAILURES = 10;

type InvitationRow = typeof invitations.$inferSelect;
type State = InvitationRecord['state'];

export interface MembersServiceDeps {
  database: Database;
  bus: ChangeBus;
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization' | 'getMembership' | 'setRole' | 'transferOwnership'>;
  /** The console's origin: invitation links are `{consoleUrl}/invitations/{token}`. */
  consoleUrl: () => string;
  /** Sends the invitation by email when CADRE_SMTP_URL is set. */
  mailer?: Mailer | undefined;
  /** A send that failed, before or after the answer (the invitation stands; the inviter copies the link). */
  onMailError: (error: unknown) => void;
  /** Each account's budget of wrong passwords, shared with sign-in (the sessions module). */
  guesses: Pick<GuessBudget, 'attempt'>;
  /** Refuses an invitation to an address whose organization enforces single sign-on (docs/sso.md). */
  invitationPolicy?: { checkPasswordInvitation(email: string): Promise<void> } | undefined;
  /** How long an invitation's answer waits for the SMTP server before it says `queued` (default 5 s). */
  mailAnswerWithinMs?: number | undefined;
}

export type MembersService = ReturnType<typeof createMembersService>;

const STATE_WORDS: Record<State, string> = {
  pending: 'This invitation is waiting to be accepted',
  accepted: 'This invitation has already been used: it works once. Sign in, or ask for a new invitation',
  revoked: 'This invitation was revoked by the organization. Ask them for a new one',
  expired: 'This invitation has expired. Ask the organization for a new one',
};

/** The 410 a link that can no longer be accepted answers, each in words and with its own code. */
const GONE_CODE = {
  accepted: 'invitation_used',
  revoked: 'invitation_revoked',
  expired: 'invitation_expired',
} as const;
const gone = (state: Exclude<State, 'pending'>) => new ApiError(GONE_CODE[state], STATE_WORDS[state]);

/**
 * Members and invitations in the management API (docs/organization-api.md, "Members and invitations"): owners
 * and admins invite by email with a link (a capability: random token, kept as its SHA-256, shown once,
 * single-use, expiring, revocable), change roles and remove members within the role ceilings; the owner
 * transfers the ownership. Role changes and transfers are the tenancy service's own operations.
 */
export function createMembersService(deps: MembersServiceDeps) {
  const { database, bus, clock, tenancy } = deps;
  const { db } = database;
  /**
   * Password attempts per invited account (its email, not the invitation: a fresh invitation to the same email
   * gets no fresh budget), counted before the password is checked, so parallel guesses count too; they draw on
   * the account's one budget of wrong passwords, which sign-in shares, on every instance.
   */
  async function admitGuess(email: string) {
    const wait = await deps.guesses.attempt(email, MAX_PASSWORD_FAILURES, clock.now().getTime());
    if (wait !== undefined) {
      throw tooManyRequests('Too many wrong passwords for this account; try again later', wait, 'invitation');
    }
  }

  function stateOf(row: InvitationRow): State {
    if (row.acceptedAt) return 'accepted';
    if (row.revokedAt) return 'revoked';
    if (row.expiresAt <= clock.now()) return 'expired';
    return 'pending';
  }

  const present = (row: InvitationRow): InvitationRecord => ({
    id: row.id,
    organizationId: row.organizationId,
    email: row.email,
    role: row.role,
    state: stateOf(row),
    invitedByUserId: row.invitedByUserId,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    acceptedAt: row.acceptedAt?.toISOString() ?? null,
    acceptedByUserId: row.acceptedByUserId,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  });

  /** The caller's own organization by id or slug, then the permission; any other organization reads as absent. */
  async function manageable(principal: Principal, idOrSlug: string): Promise<Organization> {
    const organization = await tenancy.getOrganization(idOrSlug).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'not_found') return undefined;
      throw error;
    });
    if (!organization || organization.id !== principal.organizationId)
      throw notFound(`Organization ${idOrSlug}`);
    requirePermission(principal, 'members:manage', { kind: 'organization', organizationId: organization.id });
    return organization;
  }

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
   * The invitation a token opens, and whether it is the mailed link's token (`mailed`): that one only the
   * invitee's mailbox ever had, so using it proves the email; the inviter's copy proves nothing.
   */
  async function findByToken(token: string): Promise<{ row: InvitationRow; mailed: boolean }> {
    const unknown = notFound('Invitation');
    if (!TOKEN_PATTERN.test(token)) throw unknown;
    const digest = sha256Hex(token);
    const [row] = await db
      .select()
      .from(invitations)
      .where(or(eq(invitations.tokenDigest, digest), eq(invitations.mailTokenDigest, digest)));
    if (!row) throw unknown;
    // The lookup is by digest; comparing it again in constant time keeps the final decision timing-flat.
    const mailed = row.mailTokenDigest !== null && safeEqual(row.mailTokenDigest, digest);
    if (!mailed && !safeEqual(row.tokenDigest, digest)) throw unknown;
    return { row, mailed };
  }

  const linkFor = (token: string) => `${deps.consoleUrl().replace(/\/+$/, '')}/invitations/${token}`;

  /** Never throws and never waits past the deadline: the link is already committed and must reach the inviter. */
  async function mail(
    organization: Organization,
    invitation: InvitationRow,
    mailToken: string | undefined,
    inviter: string,
  ): Promise<MailStatus> {
    if (!deps.mailer || !mailToken) return 'not_configured';
    const url = linkFor(mailToken);
    return sendWithin(
      deps.mailer,
      {
        to: invitation.email,
        subject: `Join ${organization.name} on Cadre`,
        text: [
          `${inviter} invites you to join ${organization.name} (${organization.slug}) on Cadre as ${invitation.role === 'admin' ? 'an admin' : 'a member'}.`,
          '',
          `Accept the invitation: ${url}`,
          '',
          `The link works once and expires on ${invitation.expiresAt.toUTCString()}.`,
          'If you did not expect it, ignore this email.',
        ].join('\n'),
      },
      deps.mailAnswerWithinMs ?? DEFAULT_MAIL_ANSWER_MS,
      { onError: deps.onMailError, onLateSend: () => {} },
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
    async invite(principal: Principal, organizationIdOrSlug: string, input: CreateInvitationInput) {
      const organization = await manageable(principal, organizationIdOrSlug);
      await deps.invitationPolicy?.checkPasswordInvitation(input.email);
      const now = clock.now();
      const token = `inv_${randomBase62(43)}`;
      // The mailed link gets a token of its own, never shown to the inviter: using it proves the address.
      const mailToken = deps.mailer ? `inv_${randomBase62(43)}` : undefined;
      const days = input.expiresInDays ?? DEFAULT_INVITATION_DAYS;
      const { row, inviter } = await db.transaction(async (tx) => {
        // The organization's row first: invitations to one organization are checked and written one at a time,
        // so two at once for the same email cannot both pass the checks below.
        await tx
          .select({ id: organizations.id })
          .from(organizations)
          .where(eq(organizations.id, organization.id))
          .for('update');
        const [member] = await tx
          .select({ userId: users.id })
          .from(users)
          .innerJoin(
            memberships,
            and(eq(memberships.userId, users.id), eq(memberships.organizationId, organization.id)),
          )
          .where(eq(users.email, input.email));
        if (member) {
          throw new ApiError('conflict', `${input.email} is already a member (user ${member.userId})`, [
            { path: 'userId', message: member.userId },
          ]);
        }
        const [pending] = await tx
          .select({ id: invitations.id })
          .from(invitations)
          .where(
            and(
              eq(invitations.organizationId, organization.id),
              eq(invitations.email, input.email),
              isNull(invitations.acceptedAt),
              isNull(invitations.revokedAt),
              gt(invitations.expiresAt, now),
            ),
          );
        if (pending) {
          throw new ApiError(
            'conflict',
            `${input.email} already has a pending invitation (${pending.id}): revoke it to send a new one`,
            [{ path: 'invitationId', message: pending.id }],
          );
        }
        const [created] = await tx
          .insert(invitations)
          .values({
            id: newId(),
            organizationId: organization.id,
            email: input.email,
            role: input.role,
            tokenDigest: sha256Hex(token),
            mailTokenDigest: mailToken ? sha256Hex(mailToken) : null,
            invitedByUserId: principal.userId,
            createdAt: now,
            expiresAt: new Date(now.getTime() + days * DAY_MS),
          })
          .returning();
        await recordAuditEvent(tx, {
          organizationId: organization.id,
          action: 'invitation.created',
          actor: principal,
          target: { type: 'invitation', id: created!.id },
          at: now,
          metadata: { email: input.email, role: input.role, expiresAt: created!.expiresAt.toISOString() },
        });
        // Read before the commit: after it, nothing that can fail stands between the inviter and the link.
        const [by] = await tx
          .select({ name: users.name, email: users.email })
          .from(users)
          .where(eq(users.id, principal.userId));
        return { row: created!, inviter: by?.name ?? by?.email ?? 'Someone' };
      });
      const url = linkFor(token);
      const emailStatus = await mail(organization, row, mailToken, inviter);
      return { ...present(row), token, url, emailStatus, emailSent: emailStatus === 'sent' };
    },

    /** Pending invitations (not accepted, revoked or expired), oldest first. */
    async listInvitations(principal: Principal, organizationIdOrSlug: string, query: PageQuery) {
      const organization = await manageable(principal, organizationIdOrSlug);
      const position = query.cursor ? decodeKeysetCursor(query.cursor) : undefined;
      const micros = sql`(extract(epoch from ${invitations.createdAt}) * 1000000)::bigint`;
      const rows = await db
        .select({ row: invitations, micros: sql<string>`(${micros})::text` })
        .from(invitations)
        .where(
          and(
            eq(invitations.organizationId, organization.id),
            isNull(invitations.acceptedAt),
            isNull(invitations.revokedAt),
            gt(invitations.expiresAt, clock.now()),
            position
              ? or(
                  sql`${micros} > ${position.micros}::bigint`,
                  and(sql`${micros} = ${position.micros}::bigint`, gt(invitations.id, position.id)),
                )
              : undefined,
          ),
        )
        .orderBy(asc(invitations.createdAt), asc(invitations.id))
        .limit(query.limit + 1);
      const { items, pagination } = cursorPage(
        rows,
        query.limit,
        (last) => encodeKeysetCursor({ micros: last.micros, id: last.row.id }),
        (item) => present(item.row),
      );
      return { data: items, pagination };
    },

    /**
     * A new copy of the inviter's link for a pending invitation (the first was shown once): its token replaces
     * the previous copy's, which stops working. The mailed link is untouched, and still the only one that
     * proves the email (docs/admin-api.md, "Accounts and proven emails"). Accepted, revoked or expired: 410.
     */
    async copyInvitationLink(principal: Principal, organizationIdOrSlug: string, invitationId: string) {
      const organization = await manageable(principal, organizationIdOrSlug);
      const token = `inv_${randomBase62(43)}`;
      const row = await db.transaction(async (tx) => {
        const [found] = await tx
          .select()
          .from(invitations)
          .where(and(eq(invitations.id, invitationId), eq(invitations.organizationId, organization.id)))
          .for('update');
        if (!found) throw notFound(`Invitation ${invitationId}`);
        const state = stateOf(found);
        if (state !== 'pending') throw gone(state);
        const now = clock.now();
        const [renewed] = await tx
          .update(invitations)
          .set({ tokenDigest: sha256Hex(token) })
          .where(eq(invitations.id, found.id))
          .returning();
        await recordAuditEvent(tx, {
          organizationId: organization.id,
          action: 'invitation.link_copied',
          actor: principal,
          target: { type: 'invitation', id: found.id },
          at: now,
          metadata: { email: found.email, role: found.role },
        });
        return renewed!;
      });
      return { ...present(row), token, url: linkFor(token) };
    },

    /** Idempotent for a revoked invitation; an accepted one is 409 (remove the member instead). */
    async revokeInvitation(principal: Principal, organizationIdOrSlug: string, invitationId: string) {
      const organization = await manageable(principal, organizationIdOrSlug);
      return db.transaction(async (tx) => {
        const [row] = await tx
          .select()
          .from(invitations)
          .where(and(eq(invitations.id, invitationId), eq(invitations.organizationId, organization.id)))
          .for('update');
        if (!row) throw notFound(`Invitation ${invitationId}`);
        if (row.acceptedAt) {
          throw new ApiError(
            'conflict',
            `Invitation ${invitationId} was already accepted: remove the member instead`,
          );
        }
        if (row.revokedAt) return present(row);
        const now = clock.now();
        const [revoked] = await tx
          .update(invitations)
          .set({ revokedAt: now })
          .where(eq(invitations.id, row.id))
          .returning();
        await recordAuditEvent(tx, {
          organizationId: organization.id,
          action: 'invitation.revoked',
          actor: principal,
          target: { type: 'invitation', id: row.id },
          at: now,
          metadata: { email: row.email, role: row.role },
        });
        return present(revoked!);
      });
    },

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

    /** What a link is for, read by whoever holds it (the console's invitation page). */
    async preview(token: string) {
      const { row, mailed } = await findByToken(token);
      const [organization] = await db
        .select()
        .from(organizations)
        .where(eq(organizations.id, row.organizationId));
      const [user] = await db.select().from(users).where(eq(users.email, row.email));
      const state = stateOf(row);
      return {
        organization: { id: organization!.id, slug: organization!.slug, name: organization!.name },
        email: row.email,
        role: row.role,
        state,
        message: STATE_WORDS[state],
        expiresAt: row.expiresAt.toISOString(),
        // The mailed link takes an unproven account over as if it were new: its name and password are set anew.
        account: user && (user.emailVerifiedAt || !mailed) ? ('existing' as const) : ('new' as const),
      };
    },

    /**
     * Accepts a pending invitation once (docs/organization-api.md, "Following the link"). Expired, revoked and
     * used links answer 410 with their own code. Which account joins is decided first (`admission`); the
     * membership, the account's change and the audit event are then written in one transaction.
     */
    async accept(token: string, input: AcceptInvitationInput, signedInUserId?: string) {
      const { row: found, mailed } = await findByToken(token);
      const state = stateOf(found);
      if (state !== 'pending') throw gone(state);
      const [existing] = await db.select().from(users).where(eq(users.email, found.email));
      const admitted = await admission(found.email, existing, mailed, input, signedInUserId, admitGuess);
      return bus.commit(async (tx, publish) => {
        // Locked and read again: of two accepts at once, the second sees the first's.
        const [row] = await tx.select().from(invitations).where(eq(invitations.id, found.id)).for('update');
        const now = clock.now();
        const current = stateOf(row!);
        if (current !== 'pending') throw gone(current);
        const user = await accountOf(tx, publish, row!, admitted, input, now);
        const [membership] = await tx
          .insert(memberships)
          .values({ organizationId: row!.organizationId, userId: user.id, role: row!.role })
          .onConflictDoNothing()
          .returning();
        if (!membership) {
          throw new ApiError('conflict', `${row!.email} is already a member of this organization`, [
            { path: 'userId', message: user.id },
          ]);
        }
        await tx
          .update(invitations)
          .set({ acceptedAt: now, acceptedByUserId: user.id })
          .where(eq(invitations.id, row!.id));
        await recordAuditEvent(tx, {
          organizationId: row!.organizationId,
          action: 'membership.created',
          actor: { kind: 'system', userId: user.id },
          target: { type: 'user', id: user.id },
          at: now,
          metadata: { role: membership.role, invitationId: row!.id, invitedByUserId: row!.invitedByUserId },
        });
        const [organization] = await tx
          .select()
          .from(organizations)
          .where(eq(organizations.id, row!.organizationId));
        return { user, organization: organization!, membership };
      });
    },
  };
}
