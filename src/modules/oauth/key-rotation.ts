import { and, asc, eq, gt, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/client.js';
import { type KeyRing, KeyRingError } from '../../lib/key-ring.js';
import { secretAad } from '../webhooks/webhooks.service.js';
import { webhookEndpoints } from '../webhooks/webhooks.tables.js';
import { connectionAad } from './connections.js';
import { clientSecretAad } from './integrations.service.js';
import { connections, integrationVersions } from './oauth.tables.js';

export interface ReencryptOptions {
  batchSize?: number;
  /** Stop after this many rows (to bound one run; running again continues). */
  maxRows?: number;
}

export interface ReencryptResult {
  integrationVersions: number;
  connections: number;
  /** Webhook endpoints whose signing secret (and previous one, during a rotation) were re-encrypted. */
  webhookEndpoints: number;
  /** Rows whose ciphertext no key of the ring opens (damaged, or moved between rows): skipped, listed here. */
  unreadable: string[];
  /** True when no ciphertext under an older key remains. */
  done: boolean;
}

/** SQL: does this ciphertext column hold a value not made with the current key? */
const notUnder = (column: AnyPgColumn, prefix: string) => sql`left(${column}, ${prefix.length}) <> ${prefix}`;

/** SQL: does this endpoint hold a signing secret (current or previous) not made with the current key? */
const staleWebhookSecret = (prefix: string) =>
  or(
    notUnder(webhookEndpoints.secretCiphertext, prefix),
    and(
      isNotNull(webhookEndpoints.previousSecretCiphertext),
      notUnder(webhookEndpoints.previousSecretCiphertext, prefix),
    ),
  );

/**
 * `cadre admin rotate-encryption-key`: re-encrypts every stored secret under the newest key of the ring.
 * Each row is rewritten in its own statement, guarded by its old ciphertext (a concurrent token refresh
 * wins and is not overwritten), so an interrupted run leaves every row readable and the next run simply
 * continues with the rows still under an old key. Rows are visited in id order after a cursor, so a row
 * that cannot be rewritten is not retried forever within one run; rows no key opens are reported, not fatal
 * (one damaged row must not block a rotation).
 */
export function createKeyRotation(database: Database, keyRing: () => KeyRing) {
  const { db } = database;

  return {
    async reencryptAll(options: ReencryptOptions = {}): Promise<ReencryptResult> {
      const ring = keyRing();
      const prefix = `v1.${ring.currentKeyId}.`;
      const batchSize = options.batchSize ?? 100;
      let budget = options.maxRows ?? Number.POSITIVE_INFINITY;
      const result = {
        integrationVersions: 0,
        connections: 0,
        webhookEndpoints: 0,
        unreadable: [] as string[],
      };
      /** The new ciphertext, or undefined (row recorded as unreadable) when the old one does not open. */
      const rewrap = (id: string, value: string, aad: string): string | undefined => {
        try {
          return ring.encrypt(ring.decrypt(value, aad), aad);
        } catch (error) {
          if (error instanceof KeyRingError) {
            if (!result.unreadable.includes(id)) result.unreadable.push(id);
            return undefined;
          }
          throw error;
        }
      };

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
          budget -= 1;
          cursor = row.id;
          const secret = rewrap(row.id, row.clientSecretCiphertext, clientSecretAad(row.id));
          if (secret === undefined) continue;
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
          result.integrationVersions += updated.length;
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
          budget -= 1;
          cursor = row.id;
          const access = rewrap(row.id, row.accessTokenCiphertext, connectionAad(row, 'access_token'));
          const refresh = row.refreshTokenCiphertext
            ? rewrap(row.id, row.refreshTokenCiphertext, connectionAad(row, 'refresh_token'))
            : null;
          if (access === undefined || refresh === undefined) continue;
          const guard = [
            eq(connections.id, row.id),
            eq(connections.accessTokenCiphertext, row.accessTokenCiphertext),
          ];
          if (row.refreshTokenCiphertext)
            guard.push(eq(connections.refreshTokenCiphertext, row.refreshTokenCiphertext));
          const updated = await db
            .update(connections)
            .set({ accessTokenCiphertext: access, refreshTokenCiphertext: refresh })
            .where(and(...guard))
            .returning({ id: connections.id });
          result.connections += updated.length;
        }
      }

      cursor = '';
      while (budget > 0) {
        const rows = await db
          .select()
          .from(webhookEndpoints)
          .where(and(gt(webhookEndpoints.id, cursor), staleWebhookSecret(prefix)))
          .orderBy(asc(webhookEndpoints.id))
          .limit(Math.min(batchSize, budget));
        if (rows.length === 0) break;
        for (const row of rows) {
          budget -= 1;
          cursor = row.id;
          const current = rewrap(row.id, row.secretCiphertext, secretAad(row.id, 'secret'));
          const previous = row.previousSecretCiphertext
            ? rewrap(row.id, row.previousSecretCiphertext, secretAad(row.id, 'previous_secret'))
            : null;
          if (current === undefined || previous === undefined) continue;
          // Guarded by both old ciphertexts: a rotation of the endpoint's secret meanwhile wins.
          const guard = [
            eq(webhookEndpoints.id, row.id),
            eq(webhookEndpoints.secretCiphertext, row.secretCiphertext),
          ];
          guard.push(
            row.previousSecretCiphertext
              ? eq(webhookEndpoints.previousSecretCiphertext, row.previousSecretCiphertext)
              : isNull(webhookEndpoints.previousSecretCiphertext),
          );
          const updated = await db
            .update(webhookEndpoints)
            .set({ secretCiphertext: current, previousSecretCiphertext: previous })
            .where(and(...guard))
            .returning({ id: webhookEndpoints.id });
          result.webhookEndpoints += updated.length;
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
      const [leftWebhooks] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(webhookEndpoints)
        .where(staleWebhookSecret(prefix));
      return {
        ...result,
        done: (left?.n ?? 0) + (leftConnections?.n ?? 0) + (leftWebhooks?.n ?? 0) === 0,
      };
    },
  };
}
