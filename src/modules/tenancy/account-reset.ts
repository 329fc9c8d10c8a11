import { eq } from 'drizzle-orm';
import type { Change } from '../../db/change-bus.js';
import type { Tx } from '../../db/client.js';
import { ApiError } from '../../http/errors.js';
import { MEMBERSHIP_CHANGED } from './changes.js';
import { memberships, users } from './tenancy.tables.js';

/**
 * The credentials an account holds, ended by a reset: the sessions and API keys modules own them and are built
 * on tenancy, so the composition hands their writes in (docs/architecture.md, "Module map").
 */
export interface AccountCredentials {
  /** Ends every console session of the user still open at `at`; answers how many ended. */
  endSessions(tx: Tx, userId: string, at: Date): Promise<number>;
  /** Revokes every API key of the user not yet revoked, in every organization; answers their ids. */
  revokeApiKeys(tx: Tx, userId: string, at: Date): Promise<string[]>;
}

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
  credentials: AccountCredentials,
  userId: string,
  at: Date,
  passwordHash: string | null = null,
): Promise<CredentialsReset> {
  await tx.update(users).set({ passwordHash, emailVerifiedAt: at }).where(eq(users.id, userId));
  const endedSessions = await credentials.endSessions(tx, userId, at);
  const revokedApiKeyIds = await credentials.revokeApiKeys(tx, userId, at);
  const joined = await tx
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  for (const { organizationId } of joined) {
    await publish({ topic: MEMBERSHIP_CHANGED, organizationId, userId });
  }
  return { revokedApiKeyIds, endedSessions };
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
