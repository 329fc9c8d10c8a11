// How the audit log names webhook endpoints: as the console does, by description, else by URL; read only from
// the event's own organization. This is the audit module's port (RecordNames, src/modules/audit/audit-names.ts),
// met by shape and handed to it by the composition (src/composition/audit-names.ts).
import { type SQLWrapper, sql } from 'drizzle-orm';
import { nonEmptyText } from '../../lib/text.js';
import { webhookEndpoints } from './webhooks.tables.js';

export function webhookAuditNames() {
  return {
    webhookEndpoint: {
      current: (endpoint: { organizationId: SQLWrapper; id: SQLWrapper }) =>
        sql<string | null>`(SELECT
          COALESCE(NULLIF(${webhookEndpoints.description}, ''), ${webhookEndpoints.url})
          FROM ${webhookEndpoints} WHERE ${webhookEndpoints.organizationId} = ${endpoint.organizationId}
          AND ${webhookEndpoints.id} = ${endpoint.id})`,
      /** A deleted endpoint by the URL its event recorded. */
      recorded: (details: Readonly<Record<string, unknown>>) => nonEmptyText(details.url),
    },
  };
}
