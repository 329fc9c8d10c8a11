import { and, asc, count, eq, gt, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/client.js';
import { walkInBatches } from '../../lib/batch-walk.js';
import { secretAad } from './webhooks.service.js';
import { webhookEndpoints } from './webhooks.tables.js';

type Rewrap = (id: string, value: string, aad: string) => string | undefined;

/** SQL: does this ciphertext column hold a value not made with the current key? */
const notUnder = (column: AnyPgColumn, prefix: string) => sql`left(${column}, ${prefix.length}) <> ${prefix}`;

/** SQL: does this endpoint hold a signing secret (current or previous) not made with the current key? */
const stale = (prefix: string) =>
  or(
    notUnder(webhookEndpoints.secretCiphertext, prefix),
    and(
      isNotNull(webhookEndpoints.previousSecretCiphertext),
      notUnder(webhookEndpoints.previousSecretCiphertext, prefix),
    ),
  );

/**
 * The endpoints' signing secrets, for `cadre admin rotate-encryption-key` (the OAuth module's key rotation
 * calls this through its port, so it knows no table of this module). Each row is rewritten guarded by both old
 * ciphertexts: a rotation of the endpoint's secret meanwhile wins.
 */
export function createSigningSecretRotation(database: Database) {
  const { db } = database;
  return {
    reencrypt: (rewrap: Rewrap, currentPrefix: string, budget: number, batchSize: number) =>
      walkInBatches({
        budget,
        batchSize,
        next: (cursor, limit) =>
          db
            .select()
            .from(webhookEndpoints)
            .where(and(gt(webhookEndpoints.id, cursor), stale(currentPrefix)))
            .orderBy(asc(webhookEndpoints.id))
            .limit(limit),
        keyOf: (row) => row.id,
        visit: async (row) => {
          const current = rewrap(row.id, row.secretCiphertext, secretAad(row.id, 'secret'));
          const previous = row.previousSecretCiphertext
            ? rewrap(row.id, row.previousSecretCiphertext, secretAad(row.id, 'previous_secret'))
            : null;
          if (current === undefined || previous === undefined) return 0;
          const updated = await db
            .update(webhookEndpoints)
            .set({ secretCiphertext: current, previousSecretCiphertext: previous })
            .where(
              and(
                eq(webhookEndpoints.id, row.id),
                eq(webhookEndpoints.secretCiphertext, row.secretCiphertext),
                row.previousSecretCiphertext
                  ? eq(webhookEndpoints.previousSecretCiphertext, row.previousSecretCiphertext)
                  : isNull(webhookEndpoints.previousSecretCiphertext),
              ),
            )
            .returning({ id: webhookEndpoints.id });
          return updated.length;
        },
      }),
    async remaining(currentPrefix: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(webhookEndpoints).where(stale(currentPrefix));
      return row?.n ?? 0;
    },
  };
}
