import { and, asc, eq, gt, isNotNull, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/client.js';
import { connectionAad } from './connections.js';
import { clientSecretAad } from './integrations.service.js';
import { connections, integrationVersions } from './oauth.tables.js';
import type { KeyRing } from './token-vault.js';

export interface ReencryptOptions {
  batchSize?: number;
  /** Stop after this many rows (to bound one run; running again continues). */
  maxRows?: number;
}

export interface ReencryptResult {
  integrationVersions: number;
  connections: number;
  /** True when no ciphertext under an older key remains. */
  done: boolean;
}

/** SQL: does this ciphertext column hold a value not made with the current key? */
const notUnder = (column: AnyPgColumn, prefix: string) => sql`left(${column}, ${prefix.length}) <> ${prefix}`;

/**
 * `cadre admin rotate-encryption-key`: re-encrypts every stored secret under the newest key of the ring.
 * Each row is rewritten in its own statement, guarded by its old ciphertext (a concurrent token refresh
 * wins and is not overwritten), so an interrupted run leaves every row readable and the next run simply
 * continues with the rows still under an old key. Rows are visited in id order after a cursor, so a row
 * that cannot be rewritten is not retried forever within one run.
 */
export function createKeyRotation(database: Database, keyRing: () => KeyRing) {
  const { db } = database;

  return {
    async reencryptAll(options: ReencryptOptions = {}): Promise<ReencryptResult> {
      const ring = keyRing();
      const prefix = `v1.${ring.currentKeyId}.`;
      const batchSize = options.batchSize ?? 100;
      let budget = options.maxRows ?? Number.POSITIVE_INFINITY;
      const result = { integrationVersions: 0, connections: 0 };

      let cursor = '';
      while (budget > 0) {
        const rows = await db
          .select()
          .from(integrationVersions)
          .where(
            and(
              gt(integrationVersions.id, cursor),
              notUnder(integrationVersions.clientSecretCiphertext, prefix),
            ),
          )
          .orderBy(asc(integrationVersions.id))
          .limit(Math.min(batchSize, budget));
        if (rows.length === 0) break;
        for (const row of rows) {
          const aad = clientSecretAad(row.id);
          const updated = await db
            .update(integrationVersions)
            .set({ clientSecretCiphertext: ring.encrypt(ring.decrypt(row.clientSecretCiphertext, aad), aad) })
            .where(
              and(
                eq(integrationVersions.id, row.id),
                eq(integrationVersions.clientSecretCiphertext, row.clientSecretCiphertext),
              ),
            )
            .returning({ id: integrationVersions.id });
          result.integrationVersions += updated.length;
          budget -= 1;
          cursor = row.id;
        }
      }

      cursor = '';
      while (budget > 0) {
        const rows = await db
          .select()
          .from(connections)
          .where(
            and(
              gt(connections.id, cursor),
              or(
                notUnder(connections.accessTokenCiphertext, prefix),
                and(
                  isNotNull(connections.refreshTokenCiphertext),
                  notUnder(connections.refreshTokenCiphertext, prefix),
                ),
              ),
            ),
          )
          .orderBy(asc(connections.id))
          .limit(Math.min(batchSize, budget));
        if (rows.length === 0) break;
        for (const row of rows) {
          const rewrap = (value: string, field: 'access_token' | 'refresh_token') =>
            ring.encrypt(ring.decrypt(value, connectionAad(row, field)), connectionAad(row, field));
          const guard = [
            eq(connections.id, row.id),
            eq(connections.accessTokenCiphertext, row.accessTokenCiphertext),
          ];
          if (row.refreshTokenCiphertext)
            guard.push(eq(connections.refreshTokenCiphertext, row.refreshTokenCiphertext));
          const updated = await db
            .update(connections)
            .set({
              accessTokenCiphertext: rewrap(row.accessTokenCiphertext, 'access_token'),
              refreshTokenCiphertext: row.refreshTokenCiphertext
                ? rewrap(row.refreshTokenCiphertext, 'refresh_token')
                : null,
            })
            .where(and(...guard))
            .returning({ id: connections.id });
          result.connections += updated.length;
          budget -= 1;
          cursor = row.id;
        }
      }

      const [left] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(integrationVersions)
        .where(notUnder(integrationVersions.clientSecretCiphertext, prefix));
      const [leftConnections] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(connections)
        .where(
          or(
            notUnder(connections.accessTokenCiphertext, prefix),
            and(
              isNotNull(connections.refreshTokenCiphertext),
              notUnder(connections.refreshTokenCiphertext, prefix),
            ),
          ),
        );
      return { ...result, done: (left?.n ?? 0) + (leftConnections?.n ?? 0) === 0 };
    },
  };
}
