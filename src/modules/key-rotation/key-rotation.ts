import { and, asc, eq, gt, isNotNull, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/client.js';
import { type KeyRing, KeyRingError } from '../../lib/key-ring.js';
import { clientSecretAad, connectionAad, connections, integrationVersions } from '../oauth/index.js';

export interface ReencryptOptions {
  batchSize?: number;
  /** Stop after this many rows (to bound one run; running again continues). */
  maxRows?: number;
}

/**
 * Another module's secrets under the key ring, re-encrypted by the same rotation. A port: the rotation knows
 * no other module's tables, and the module that owns the rows rewrites them (each guarded by its old
 * ciphertext, as below).
 */
export interface SecretsUnderKeyRing {
  /**
   * Rewrites up to `budget` rows whose ciphertext is not under `currentPrefix`, reading `batchSize` at a time
   * (`rewrap` gives the new ciphertext, or undefined for a row no key opens, which it records). Returns the
   * rows visited and rewritten.
   */
  reencrypt(
    rewrap: (id: string, value: string, aad: string) => string | undefined,
    currentPrefix: string,
    budget: number,
    batchSize: number,
  ): Promise<{ visited: number; rewritten: number }>;
  /** Rows still under an older key. */
  remaining(currentPrefix: string): Promise<number>;
}

/** The other modules' secrets the rotation covers, by the result's field. */
export interface OtherSecrets {
  /** Webhooks: each endpoint's signing secret (and the previous one, during a rotation of it). */
  webhookEndpoints: SecretsUnderKeyRing;
  /** Single sign-on: each organization's identity provider client secret. */
  ssoProviders: SecretsUnderKeyRing;
}

export interface ReencryptResult {
  integrationVersions: number;
  connections: number;
  /** Webhook endpoints whose signing secret (and previous one, during a rotation) were re-encrypted. */
  webhookEndpoints: number;
  /** Identity providers whose client secret was re-encrypted. */
  ssoProviders: number;
  /** Rows whose ciphertext no key of the ring opens (damaged, or moved between rows): skipped, listed here. */
  unreadable: string[];
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
 * that cannot be rewritten is not retried forever within one run; rows no key opens are reported, not fatal
 * (one damaged row must not block a rotation).
 */
export function createKeyRotation(database: Database, keyRing: () => KeyRing, others: OtherSecrets) {
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
        ssoProviders: 0,
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

      // The other modules' secrets, each module rewriting its own rows.
      for (const field of ['webhookEndpoints', 'ssoProviders'] as const) {
        const run = await others[field].reencrypt(rewrap, prefix, budget, batchSize);
        budget -= run.visited;
        result[field] += run.rewritten;
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
      return {
        ...result,
        done:
          (left?.n ?? 0) +
            (leftConnections?.n ?? 0) +
            (await others.webhookEndpoints.remaining(prefix)) +
            (await others.ssoProviders.remaining(prefix)) ===
          0,
      };
    },
  };
}
