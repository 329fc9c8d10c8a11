// The plan counter of published Expert versions, counted by the module that owns their table and handed to
// billing by the composition (billing's OwnedCounters): billing reads no other module's tables.
import { and, count, eq, gte, lt } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { UsageSource } from '../billing/index.js';
import { registryNames, registryVersions } from './registry.tables.js';

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
