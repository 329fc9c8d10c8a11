import { and, eq, gte, lt, sql, sum } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { usageApiRequests } from './billing.tables.js';
import { hourOf } from './period.js';
import type { CounterKey } from './plans.js';

export interface UsagePeriod {
  start: Date;
  end: Date;
}

/**
 * Counts one usage counter of an organization for a period; `executor` when the count must see a
 * transaction's own view (a plan-limit check inside the write's transaction).
 */
export type UsageSource = (
  organizationId: string,
  period: UsagePeriod,
  executor?: Executor,
) => Promise<number>;

export interface ApiRequestMeterDeps {
  database: Database;
  clock: Clock;
  flushIntervalMs: number;
  onError: (error: unknown) => void;
}

/**
 * Authenticated management requests, counted in memory per organization and hour and added to the
 * database in one statement per flush, never a write per request. Reads add what this instance has not
 * flushed yet.
 */
export function createApiRequestMeter(deps: ApiRequestMeterDeps) {
  const { db } = deps.database;
  // organizationId → hour (ms) → count
  let pending = new Map<string, Map<number, number>>();
  let timer: NodeJS.Timeout | undefined;

  function record(organizationId: string) {
    const hour = hourOf(deps.clock.now()).getTime();
    let byHour = pending.get(organizationId);
    if (!byHour) {
      byHour = new Map();
      pending.set(organizationId, byHour);
    }
    byHour.set(hour, (byHour.get(hour) ?? 0) + 1);
  }

  async function flush(): Promise<void> {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    const rows = [...batch].flatMap(([organizationId, byHour]) =>
      [...byHour].map(([hour, value]) => ({ organizationId, hour: new Date(hour), count: value })),
    );
    try {
      await db
        .insert(usageApiRequests)
        .values(rows)
        .onConflictDoUpdate({
          target: [usageApiRequests.organizationId, usageApiRequests.hour],
          set: { count: sql`${usageApiRequests.count} + excluded.count` },
        });
    } catch (error) {
      // Put the counts back for the next attempt rather than lose them.
      for (const row of rows) {
        const byHour = pending.get(row.organizationId) ?? new Map<number, number>();
        byHour.set(row.hour.getTime(), (byHour.get(row.hour.getTime()) ?? 0) + row.count);
        pending.set(row.organizationId, byHour);
      }
      deps.onError(error);
    }
  }

  const source: UsageSource = async (organizationId, period) => {
    const [row] = await db
      .select({ total: sum(usageApiRequests.count) })
      .from(usageApiRequests)
      .where(
        and(
          eq(usageApiRequests.organizationId, organizationId),
          gte(usageApiRequests.hour, hourOf(period.start)),
          lt(usageApiRequests.hour, period.end),
        ),
      );
    let total = Number(row?.total ?? 0);
    const from = hourOf(period.start).getTime();
    for (const [hour, value] of pending.get(organizationId) ?? []) {
      if (hour >= from && hour < period.end.getTime()) total += value;
    }
    return total;
  };

  return {
    record,
    flush,
    source,
    start() {
      timer = setInterval(() => void flush(), deps.flushIntervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await flush();
    },
  };
}

export type UsageSources = Record<CounterKey, UsageSource>;

/**
 * The standing counts of records other modules own (API keys, connections, Expert versions): each owner
 * counts its own records and the composition hands the counts to billing, which depends on none of them.
 */
export type OwnedCounters = Omit<UsageSources, 'apiRequests'>;
