import { and, asc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ApiError, notFound } from '../../http/errors.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../http/keyset-cursor.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { cursorPage } from '../../lib/page.js';
import { randomBase62, sha256Hex } from '../../lib/secrets.js';
import { recordAuditEvent } from '../audit/index.js';
import type { Principal } from '../auth/index.js';
import {
  memberships,
  type Organization,
  organizations,
  type TenancyService,
  users,
} from '../tenancy/index.js';
import { gone, type InvitationRecords, type InvitationRow } from './invitation-records.js';
import { invitations } from './invitations.tables.js';
import { DEFAULT_MAIL_ANSWER_MS, type Mailer, type MailStatus, sendWithin } from './mailer.js';
import { manageableOrganization } from './manageable.js';
import type { CreateInvitationInput, PageQuery } from './members.schemas.js';

const DAY_MS = 86_400_000;
const DEFAULT_INVITATION_DAYS = 7;

export interface InvitationsServiceDeps {
  database: Database;
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization'>;
  records: Pick<InvitationRecords, 'stateOf' | 'present'>;
  /** The console's origin: invitation links are `{consoleUrl}/invitations/{token}`. */
  consoleUrl: () => string;
  /** Sends the invitation by email when CADRE_SMTP_URL is set. */
  mailer?: Mailer | undefined;
  /** A send that failed, before or after the answer (the invitation stands; the inviter copies the link). */
  onMailError: (error: unknown) => void;
  /** Refuses an invitation to an address whose organization enforces single sign-on (docs/sso.md). */
  invitationPolicy?: { checkPasswordInvitation(email: string): Promise<void> } | undefined;
  /** How long an invitation's answer waits for the SMTP server before it says `queued` (default 5 s). */
  mailAnswerWithinMs?: number | undefined;
}

export type InvitationsService = ReturnType<typeof createInvitationsService>;

/**
 * Invitations in the management API (docs/organization-api.md, "Members and invitations"): owners and admins
 * invite by email with a link (a capability: random token, kept as its SHA-256, shown once, single-use,
 * expiring, revocable), list the pending ones, copy a link again and revoke one.
 */
export function createInvitationsService(deps: InvitationsServiceDeps) {
  const { database, clock, tenancy } = deps;
  const { db } = database;
  const { stateOf, present } = deps.records;
  const manageable = (principal: Principal, idOrSlug: string) =>
    manageableOrganization(tenancy, principal, idOrSlug);

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
  };
}
