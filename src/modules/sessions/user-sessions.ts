import { and, eq, isNull } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { consoleSessions } from './sessions.tables.js';

/** Ends every console session of the user still open, as of `at` (an account reset); answers how many. */
export async function endUserSessions(tx: Tx, userId: string, at: Date): Promise<number> {
  const ended = await tx
    .update(consoleSessions)
    .set({ revokedAt: at })
    .where(and(eq(consoleSessions.userId, userId), isNull(consoleSessions.revokedAt)))
    .returning({ id: consoleSessions.id });
  return ended.length;
}
