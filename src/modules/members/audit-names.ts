// How the audit log names invitations: by the email invited, read only from the event's own organization. This
// is the audit module's port (RecordNames, src/modules/audit/audit-names.ts), met by shape and handed to it by
// the composition (src/composition/audit-names.ts).
import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { nonEmptyText } from '../../lib/text.js';
import { invitations } from './invitations.tables.js';

export function invitationAuditNames({ db }: Pick<Database, 'db'>) {
  return {
    invitation: {
      ofIds: (organizationId: string, ids: string[]) =>
        db
          .select({ id: invitations.id, name: invitations.email })
          .from(invitations)
          .where(and(eq(invitations.organizationId, organizationId), inArray(invitations.id, ids))),
      /** An invitation event's target by the email its event recorded. */
      recorded: (details: Readonly<Record<string, unknown>>) => nonEmptyText(details.email),
    },
  };
}
