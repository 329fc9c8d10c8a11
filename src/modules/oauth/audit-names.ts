// How the audit log names connections and integrations: a connection by its provider and account, an
// integration by its provider, as people know the provider (GitHub, not `github`); read only from the event's
// own organization. This is the audit module's port (RecordNames, src/modules/audit/audit-names.ts), met by
// shape and handed to it by the composition (src/composition/audit-names.ts).
import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { nonEmptyText } from '../../lib/text.js';
import { connections } from './oauth.tables.js';
import { presetName } from './presets/index.js';

type Details = Readonly<Record<string, unknown>>;

/** The provider a connection's or an integration's event recorded, by its name. */
const providerOf = (details: Details): string | null => {
  const preset = nonEmptyText(details.presetKey);
  return preset ? presetName(preset) : null;
};

export function oauthAuditNames({ db }: Pick<Database, 'db'>) {
  return {
    connection: {
      ofIds: async (organizationId: string, ids: string[]) =>
        (
          await db
            .select({
              id: connections.id,
              presetKey: connections.presetKey,
              accountId: connections.accountId,
            })
            .from(connections)
            .where(and(eq(connections.organizationId, organizationId), inArray(connections.id, ids)))
        ).map((row) => ({ id: row.id, name: `${presetName(row.presetKey)} ${row.accountId}` })),
      recorded: (details: Details) =>
        [providerOf(details), nonEmptyText(details.accountId)].filter(Boolean).join(' ') || null,
    },
    integration: { recorded: providerOf },
  };
}
