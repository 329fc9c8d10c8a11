import { eq, or } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ApiError, notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { invitations } from './invitations.tables.js';
import type { InvitationRecord } from './members.schemas.js';

// An invitation's row as both sides of it read it: the managers' routes (invitations.service.ts) and the
// link's holder (invitation-links.service.ts): its state, its API record, and the row a token opens.

const TOKEN_PATTERN = /^inv_[0-9A-Za-z]{43}$/;

export type InvitationRow = typeof invitations.$inferSelect;
type State = InvitationRecord['state'];

export const STATE_WORDS: Record<State, string> = {
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
export const gone = (state: Exclude<State, 'pending'>) => new ApiError(GONE_CODE[state], STATE_WORDS[state]);

export interface InvitationRecordsDeps {
  database: Database;
  clock: Clock;
}

export type InvitationRecords = ReturnType<typeof createInvitationRecords>;

export function createInvitationRecords({ database, clock }: InvitationRecordsDeps) {
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

  /**
   * The invitation a token opens, and whether it is the mailed link's token (`mailed`): that one only the
   * invitee's mailbox ever had, so using it proves the email; the inviter's copy proves nothing.
   */
  async function findByToken(token: string): Promise<{ row: InvitationRow; mailed: boolean }> {
    const unknown = notFound('Invitation');
    if (!TOKEN_PATTERN.test(token)) throw unknown;
    const digest = sha256Hex(token);
    const [row] = await database.db
      .select()
      .from(invitations)
      .where(or(eq(invitations.tokenDigest, digest), eq(invitations.mailTokenDigest, digest)));
    if (!row) throw unknown;
    // The lookup is by digest; comparing it again in constant time keeps the final decision timing-flat.
    const mailed = row.mailTokenDigest !== null && safeEqual(row.mailTokenDigest, digest);
    if (!mailed && !safeEqual(row.tokenDigest, digest)) throw unknown;
    return { row, mailed };
  }

  return { stateOf, present, findByToken };
}
