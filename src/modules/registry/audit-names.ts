// How the audit log names Experts: an Expert version an event's details name by id, by its key
// (`name@version`, read only from the event's own organization); an event made to an Expert has its key as its
// target. This is the audit module's port (RecordNames, src/modules/audit/audit-names.ts), met by shape and
// handed to it by the composition (src/composition/audit-names.ts).
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { registryExperts } from './registry.tables.js';

export function expertAuditNames({ db }: Pick<Database, 'db'>) {
  return {
    expert: {
      ofIds: (organizationId: string, ids: string[]) =>
        db
          .select({
            id: registryExperts.id,
            name: sql<string>`${registryExperts.name} || '@' || ${registryExperts.version}`,
          })
          .from(registryExperts)
          .where(and(eq(registryExperts.organizationId, organizationId), inArray(registryExperts.id, ids))),
      recorded: (_details: Readonly<Record<string, unknown>>, key: string) => key,
    },
  };
}
