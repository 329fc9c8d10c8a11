import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { randomBase62, safeEqual, sha256Hex } from '../../lib/secrets.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import { scimTokens } from './scim.tables.js';

const TOKEN_PATTERN = /^scim_[0-9A-Za-z]{43}$/;

export type ScimTokenService = ReturnType<typeof createScimTokenService>;

/**
 * The organization's SCIM bearer token (docs/scim.md): one per organization, shown once when made, kept as
 * its SHA-256, replaced by a rotation (the old one stops at once), revoked by the owner. Audited; the token
 * itself is never logged nor stored.
 */
export function createScimTokenService({ database, clock }: { database: Database; clock: Clock }) {
  const { db } = database;

  const present = (row: typeof scimTokens.$inferSelect) => ({
    tokenStart: row.tokenStart,
    createdAt: row.createdAt.toISOString(),
    createdByUserId: row.createdByUserId,
  });

  return {
    async status(principal: Principal) {
      requirePermission(principal, 'organization:manage');
      const [row] = await db
        .select()
        .from(scimTokens)
        .where(eq(scimTokens.organizationId, principal.organizationId));
      return row ? present(row) : null;
    },

    /** A new token (the previous one, if any, stops working in the same transaction). */
    async rotate(principal: Principal) {
      requirePermission(principal, 'organization:manage');
      const token = `scim_${randomBase62(43)}`;
      const now = clock.now();
      const values = {
        organizationId: principal.organizationId,
        tokenDigest: sha256Hex(token),
        tokenStart: token.slice(0, 9),
        createdByUserId: principal.userId,
        createdAt: now,
      };
      const row = await db.transaction(async (tx) => {
        const [written] = await tx
          .insert(scimTokens)
          .values(values)
          .onConflictDoUpdate({ target: scimTokens.organizationId, set: values })
          .returning();
        await recordAuditEvent(tx, {
          organizationId: principal.organizationId,
          action: 'scim.token_rotated',
          actor: principal,
          target: { type: 'organization', id: principal.organizationId },
          at: now,
          metadata: { tokenStart: values.tokenStart },
        });
        return written!;
      });
      return { ...present(row), token };
    },

    async revoke(principal: Principal) {
      requirePermission(principal, 'organization:manage');
      return db.transaction(async (tx) => {
        const [removed] = await tx
          .delete(scimTokens)
          .where(eq(scimTokens.organizationId, principal.organizationId))
          .returning();
        if (!removed) throw notFound('SCIM token');
        await recordAuditEvent(tx, {
          organizationId: principal.organizationId,
          action: 'scim.token_revoked',
          actor: principal,
          target: { type: 'organization', id: principal.organizationId },
          at: clock.now(),
          metadata: { tokenStart: removed.tokenStart },
        });
        return present(removed);
      });
    },

    /**
     * The organization a presented token belongs to, or undefined. Looked up by digest, then compared again
     * in constant time, so the decision's timing does not depend on how much of a guess was right.
     */
    async organizationOf(token: string): Promise<string | undefined> {
      if (!TOKEN_PATTERN.test(token)) return undefined;
      const digest = sha256Hex(token);
      const [row] = await db
        .select({ organizationId: scimTokens.organizationId, tokenDigest: scimTokens.tokenDigest })
        .from(scimTokens)
        .where(eq(scimTokens.tokenDigest, digest));
      return row && safeEqual(row.tokenDigest, digest) ? row.organizationId : undefined;
    },
  };
}
