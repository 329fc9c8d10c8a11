import { and, gt, isNull, lte } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { apiKeys } from './api-keys.tables.js';

/** Keys neither revoked nor expired at `now` that expire by `until` (the events' expiry notices). */
export function keysExpiringBy(executor: Executor, now: Date, until: Date) {
  return executor
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      organizationId: apiKeys.organizationId,
      expiresAt: apiKeys.expiresAt,
    })
    .from(apiKeys)
    .where(and(isNull(apiKeys.revokedAt), gt(apiKeys.expiresAt, now), lte(apiKeys.expiresAt, until)));
}
