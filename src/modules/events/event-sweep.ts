import type { Database } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { keysExpiringBy } from '../api-keys/index.js';
import type { CounterKey, PlanLimits, UsageSources } from '../billing/index.js';
import { organizations } from '../tenancy/index.js';
import { recordEvent } from './events.repo.js';

const DAY_MS = 86_400_000;
/** Days before a key's expiry that `api_key.expiring` is emitted, smallest first. */
const EXPIRY_NOTICES = [1, 7] as const;
/** Percentages of a plan limit that `usage.threshold_reached` is emitted at, largest first. */
const USAGE_THRESHOLDS = [100, 80] as const;
const COUNTERS: readonly CounterKey[] = ['apiRequests', 'expertVersions', 'apiKeys', 'connections'];

export interface EventSweepDeps {
  database: Database;
  clock: Clock;
  entitlement: PlanLimits['entitlement'];
  usage: UsageSources;
}

/**
 * Events no change causes but time does: a key about to expire, a plan limit nearly used. A periodic check
 * finds them; each carries a dedupe key (unique in the table), so every instance may run the check and each
 * event is still written once. Only the tightest notice reached is written: a key created with twelve hours
 * left gets the one-day notice, not a late seven-day one.
 */
export function createEventSweep({ database, clock, entitlement, usage }: EventSweepDeps) {
  const { db } = database;

  async function expiringKeys(now: Date): Promise<number> {
    const rows = await keysExpiringBy(db, now, new Date(now.getTime() + EXPIRY_NOTICES.at(-1)! * DAY_MS));
    let written = 0;
    for (const key of rows) {
      const left = key.expiresAt!.getTime() - now.getTime();
      const days = EXPIRY_NOTICES.find((notice) => left <= notice * DAY_MS)!;
      // In a transaction: the event and its webhook deliveries are written together.
      const recorded = await db.transaction((tx) =>
        recordEvent(tx, {
          organizationId: key.organizationId,
          type: 'api_key.expiring',
          actor: { kind: 'system' },
          resource: { type: 'apiKey', id: key.id },
          payload: {
            apiKey: { id: key.id, name: key.name, expiresAt: key.expiresAt!.toISOString() },
            daysLeft: days,
          },
          at: now,
          dedupeKey: `api_key.expiring:${key.id}:${days}`,
        }),
      );
      if (recorded) written++;
    }
    return written;
  }

  async function usageThresholds(now: Date): Promise<number> {
    let written = 0;
    for (const { id } of await db.select({ id: organizations.id }).from(organizations)) {
      const current = await entitlement(db, id);
      for (const counter of COUNTERS) {
        const allowed = current.limits[counter];
        if (allowed === null || !Number.isFinite(allowed) || allowed <= 0) continue;
        const used = await usage[counter](id, current.period);
        const threshold = USAGE_THRESHOLDS.find((percent) => used * 100 >= allowed * percent);
        if (threshold === undefined) continue;
        const periodStart = current.period.start.toISOString();
        // In a transaction: the event and its webhook deliveries are written together.
        const recorded = await db.transaction((tx) =>
          recordEvent(tx, {
            organizationId: id,
            type: 'usage.threshold_reached',
            actor: { kind: 'system' },
            resource: { type: 'organization', id },
            payload: {
              limit: counter,
              threshold,
              used,
              allowed,
              periodStart,
              periodEnd: current.period.end.toISOString(),
            },
            at: now,
            dedupeKey: `usage.threshold_reached:${id}:${counter}:${threshold}:${periodStart}`,
          }),
        );
        if (recorded) written++;
      }
    }
    return written;
  }

  return {
    /** One pass of both checks; answers how many events it wrote. */
    async sweepOnce(): Promise<number> {
      const now = clock.now();
      return (await expiringKeys(now)) + (await usageThresholds(now));
    },
  };
}
