import { and, eq, isNull } from 'drizzle-orm';
import type { Change } from '../../db/change-bus.js';
import type { Tx } from '../../db/client.js';
import { ApiError } from '../../http/errors.js';
import { apiKeys } from '../api-keys/api-keys.tables.js';
import { consoleSessions } from '../sessions/sessions.tables.js';
import { MEMBERSHIP_CHANGED } from './changes.js';
import { memberships, users } from './tenancy.tables.js';

/** What a reset took from whoever held the account before. */
export interface CredentialsReset {
  revokedApiKeyIds: string[];
  endedSessions: number;
}

/**
 * Takes an account whose email was never proven away from whoever set its credentials (docs/admin-api.md,
 * "Accounts and proven emails"), inside a `ChangeBus.commit`: the password becomes `passwordHash` (null: none
 * until the operator sets one), every console session and API key of the user ends, in every organization, and
 * the email counts as proven from `at`. Every instance drops the user's cached keys before the answer.
 */
export async function resetAccountCredentials(
  tx: Tx,
  publish: (change: Change) => Promise<void>,
  userId: string,
  at: Date,
  passwordHash: string | null = null,
): Promise<CredentialsReset> {
  await tx.update(users).set({ passwordHash, emailVerifiedAt: at }).where(eq(users.id, userId));
  const ended = await tx
    .update(consoleSessions)
    .set({ revokedAt: at })
    .where(and(eq(consoleSessions.userId, userId), isNull(consoleSessions.revokedAt)))
    .returning({ id: consoleSessions.id });
  const revoked = await tx
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  const joined = await tx
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  for (const { organizationId } of joined) {
    await publish({ topic: MEMBERSHIP_CHANGED, organizationId, userId });
  }
  return { revokedApiKeyIds: revoked.map((key) => key.id), endedSessions: ended.length };
}

/**
 * The 409 the admin API answers for an account that never proved its email, naming the option that resets it
 * (`path`: where the option goes in the body).
 */
export function unprovenAccount(email: string, userId: string, path: string): ApiError {
  return new ApiError(
    'conflict',
    `${email} has an account (user ${userId}) that never proved its email: it was made from an invitation ` +
      'link that was not mailed to it, so whoever set its password may not be its owner. Send ' +
      `"${path.split('.').at(-1)}": "reset" to reset its password, sessions and API keys and use it, or use another email`,
    [{ path, message: 'send "reset" to reset the unproven account and use it' }],
  );
}
