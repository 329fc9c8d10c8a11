// The plan counters of records the OAuth and registry modules own, counted over their tables for billing
// (src/modules/billing/usage.ts, OwnedCounters). Billing depends on neither module; the composition (src/app.ts)
// hands these counts to it. They belong in those modules' public entries, and move there once each has one.
import { and, count, eq, gte, lt } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import type { UsageSource } from '../modules/billing/index.js';
import { connections } from '../modules/oauth/index.js';
import { registryNames, registryVersions } from '../modules/registry/registry.tables.js';

/** Connections are a standing count (like API keys): every Connection the organization holds now. */
export function connectionsSource(database: Database): UsageSource {
  return async (organizationId, _period, executor = database.db) => {
    const [row] = await executor
      .select({ value: count() })
      .from(connections)
      .where(eq(connections.organizationId, organizationId));
    return Number(row?.value ?? 0);
  };
}

/** Expert versions the organization published in the period (deleted ones included: they were published). */
export function expertVersionsSource(database: Database): UsageSource {
  return async (organizationId, period, executor = database.db) => {
    const [row] = await executor
      .select({ value: count() })
      .from(registryVersions)
      .innerJoin(registryNames, eq(registryNames.name, registryVersions.name))
      .where(
        and(
          eq(registryNames.organizationId, organizationId),
          gte(registryVersions.publishedAt, period.start),
          lt(registryVersions.publishedAt, period.end),
        ),
      );
    return Number(row?.value ?? 0);
  };
}
