// How the audit log names API keys: by their name, read only from the event's own organization. This is the
// audit module's port (RecordNames, src/modules/audit/audit-names.ts), met by shape and handed to it by the
// composition (src/composition/audit-names.ts).
import { and, eq, inArray, type SQLWrapper, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { apiKeys } from './api-keys.tables.js';

export function apiKeyAuditNames({ db }: Pick<Database, 'db'>) {
  return {
    apiKey: {
      current: (key: { organizationId: SQLWrapper; id: SQLWrapper }) =>
        sql<string | null>`(SELECT ${apiKeys.name} FROM ${apiKeys}
          WHERE ${apiKeys.organizationId} = ${key.organizationId} AND ${apiKeys.id} = ${key.id})`,
      ofIds: (organizationId: string, ids: string[]) =>
        db
          .select({ id: apiKeys.id, name: apiKeys.name })
          .from(apiKeys)
          .where(and(eq(apiKeys.organizationId, organizationId), inArray(apiKeys.id, ids))),
    },
  };
}
