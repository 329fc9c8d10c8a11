// The plan counter of connections, counted by the module that owns their table and handed to billing by the
// composition (billing's OwnedCounters): billing reads no other module's tables.
import { count, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { UsageSource } from '../billing/index.js';
import { connections } from './oauth.tables.js';

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
