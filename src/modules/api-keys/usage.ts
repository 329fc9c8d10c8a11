import { and, count, eq, gt, isNull, or } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { UsageSource } from '../billing/index.js';
import { apiKeys } from './api-keys.tables.js';

/** Active API keys now: neither revoked nor expired. */
export function activeApiKeysSource(database: Database, clock: Clock): UsageSource {
  return async (organizationId, _period, executor = database.db) => {
    const now = clock.now();
    const [row] = await executor
      .select({ value: count() })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.organizationId, organizationId),
          isNull(apiKeys.revokedAt),
          or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
        ),
      );
    return Number(row?.value ?? 0);
  };
}
