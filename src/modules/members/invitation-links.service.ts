import { eq } from 'drizzle-orm';
import type { ChangeBus } from '../../db/change-bus.js';
import type { Database } from '../../db/client.js';
import { ApiError, tooManyRequests } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { recordAuditEvent } from '../audit/index.js';
import type { GuessBudget } from '../sessions/index.js';
import { memberships, organizations, users } from '../tenancy/index.js';
import { accountOf, admission } from './acceptance.js';
import { gone, type InvitationRecords, STATE_WORDS } from './invitation-records.js';
import { invitations } from './invitations.tables.js';
import type { AcceptInvitationInput } from './members.schemas.js';

/** Password attempts an invitation link takes for one account (with its wrong sign-ins) before it refuses more. */
const MAX_PASSWORD_FAILURES = 10;

export interface InvitationLinksServiceDeps {
  database: Database;
  bus: ChangeBus;
  clock: Clock;
  records: InvitationRecords;
  /** Each account's budget of wrong passwords, shared with sign-in (the sessions module). */
  guesses: Pick<GuessBudget, 'attempt'>;
}

export type InvitationLinksService = ReturnType<typeof createInvitationLinksService>;

/** The invitation link's side, for whoever holds it: what the link is for, and accepting it. */
export function createInvitationLinksService(deps: InvitationLinksServiceDeps) {
  const { database, bus, clock } = deps;
  const { db } = database;
  const { stateOf, findByToken } = deps.records;
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

  return {
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
