import { and, asc, count, eq, gt, isNotNull, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/client.js';
import { walkInBatches } from '../../lib/batch-walk.js';
import { clientSecretAad, connectionAad } from './ciphertexts.js';
import { connections, integrationVersions } from './oauth.tables.js';

type Rewrap = (id: string, value: string, aad: string) => string | undefined;

/** SQL: does this ciphertext column hold a value not made with the current key? */
const notUnder = (column: AnyPgColumn, prefix: string) => sql`left(${column}, ${prefix.length}) <> ${prefix}`;

/** SQL: does this connection hold a token (access, or refresh when it has one) not made with the current key? */
const staleTokens = (prefix: string) =>
  or(
    notUnder(connections.accessTokenCiphertext, prefix),
    and(isNotNull(connections.refreshTokenCiphertext), notUnder(connections.refreshTokenCiphertext, prefix)),
  );

/**
 * OAuth's secrets, for `cadre admin rotate-encryption-key`: the integration versions' client secrets and the
 * connections' tokens. The key rotation module calls these through its port (`SecretsUnderKeyRing`), as it
 * calls the webhooks' and single sign-on's, so it reads none of OAuth's tables. Each row is rewritten guarded
 * by its old ciphertexts: a concurrent token refresh wins and is not overwritten.
 */
export function createOAuthSecretRotation(database: Database) {
  const { db } = database;
  return {
    integrationVersions: {
      reencrypt: (rewrap: Rewrap, currentPrefix: string, budget: number, batchSize: number) =>
        walkInBatches({
          budget,
          batchSize,
          next: (cursor, limit) =>
            db
              .select()
              .from(integrationVersions)
              .where(
                and(
                  gt(integrationVersions.id, cursor),
                  notUnder(integrationVersions.clientSecretCiphertext, currentPrefix),
                ),
              )
              .orderBy(asc(integrationVersions.id))
              .limit(limit),
          keyOf: (row) => row.id,
          visit: async (row) => {
            const secret = rewrap(row.id, row.clientSecretCiphertext, clientSecretAad(row.id));
            if (secret === undefined) return 0;
            const updated = await db
              .update(integrationVersions)
              .set({ clientSecretCiphertext: secret })
              .where(
                and(
                  eq(integrationVersions.id, row.id),
                  eq(integrationVersions.clientSecretCiphertext, row.clientSecretCiphertext),
                ),
              )
              .returning({ id: integrationVersions.id });
            return updated.length;
          },
        }),
      async remaining(currentPrefix: string): Promise<number> {
        const [row] = await db
          .select({ n: count() })
          .from(integrationVersions)
          .where(notUnder(integrationVersions.clientSecretCiphertext, currentPrefix));
        return row?.n ?? 0;
      },
    },

    connections: {
      reencrypt: (rewrap: Rewrap, currentPrefix: string, budget: number, batchSize: number) =>
        walkInBatches({
          budget,
          batchSize,
          next: (cursor, limit) =>
            db
              .select()
              .from(connections)
              .where(and(gt(connections.id, cursor), staleTokens(currentPrefix)))
              .orderBy(asc(connections.id))
              .limit(limit),
          keyOf: (row) => row.id,
          visit: async (row) => {
            const access = rewrap(row.id, row.accessTokenCiphertext, connectionAad(row, 'access_token'));
            const refresh = row.refreshTokenCiphertext
              ? rewrap(row.id, row.refreshTokenCiphertext, connectionAad(row, 'refresh_token'))
              : null;
            if (access === undefined || refresh === undefined) return 0;
            const updated = await db
              .update(connections)
              .set({ accessTokenCiphertext: access, refreshTokenCiphertext: refresh })
              .where(
                and(
                  eq(connections.id, row.id),
                  eq(connections.accessTokenCiphertext, row.accessTokenCiphertext),
                  row.refreshTokenCiphertext
                    ? eq(connections.refreshTokenCiphertext, row.refreshTokenCiphertext)
                    : undefined,
                ),
              )
              .returning({ id: connections.id });
            return updated.length;
          },
        }),
      async remaining(currentPrefix: string): Promise<number> {
        const [row] = await db.select({ n: count() }).from(connections).where(staleTokens(currentPrefix));
        return row?.n ?? 0;
      },
    },
  };
}
