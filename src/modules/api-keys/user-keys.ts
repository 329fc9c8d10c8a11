import { and, eq, isNull } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { apiKeys } from './api-keys.tables.js';

/** Revokes every API key of the user not yet revoked, in every organization, as of `at`; answers their ids. */
export async function revokeUserApiKeys(tx: Tx, userId: string, at: Date): Promise<string[]> {
  const revoked = await tx
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return revoked.map((key) => key.id);
}
