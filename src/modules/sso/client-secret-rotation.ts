import { and, asc, count, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { walkInBatches } from '../../lib/batch-walk.js';
import { secretAad } from './provider.service.js';
import { ssoProviders } from './sso.tables.js';

type Rewrap = (id: string, value: string, aad: string) => string | undefined;

/** SQL: is the client secret under a key other than the current one? */
const stale = (prefix: string) =>
  sql`left(${ssoProviders.clientSecretCiphertext}, ${prefix.length}) <> ${prefix}`;

/**
 * The identity providers' client secrets, for `cadre admin rotate-encryption-key` (the OAuth module's key
 * rotation calls this through its port, so it knows no table of this module). Each row is rewritten guarded
 * by its old ciphertext: an owner saving a new secret meanwhile wins.
 */
export function createClientSecretRotation(database: Database) {
  const { db } = database;
  return {
    reencrypt: (rewrap: Rewrap, currentPrefix: string, budget: number, batchSize: number) =>
      walkInBatches({
        budget,
        batchSize,
        next: (cursor, limit) =>
          db
            .select({
              organizationId: ssoProviders.organizationId,
              ciphertext: ssoProviders.clientSecretCiphertext,
            })
            .from(ssoProviders)
            .where(and(gt(ssoProviders.organizationId, cursor), stale(currentPrefix)))
            .orderBy(asc(ssoProviders.organizationId))
            .limit(limit),
        keyOf: (row) => row.organizationId,
        visit: async (row) => {
          const next = rewrap(row.organizationId, row.ciphertext, secretAad(row.organizationId));
          if (next === undefined) return 0;
          const updated = await db
            .update(ssoProviders)
            .set({ clientSecretCiphertext: next })
            .where(
              and(
                eq(ssoProviders.organizationId, row.organizationId),
                eq(ssoProviders.clientSecretCiphertext, row.ciphertext),
              ),
            )
            .returning({ organizationId: ssoProviders.organizationId });
          return updated.length;
        },
      }),
    async remaining(currentPrefix: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(ssoProviders).where(stale(currentPrefix));
      return row?.n ?? 0;
    },
  };
}
