// How the audit log names the records tenancy owns: people, organizations, projects, environments and agents.
// This is the audit module's port (RecordNames, src/modules/audit/audit-names.ts), met by shape and handed to it
// by the composition (src/composition/audit-names.ts), so neither module imports the other for it.
import { and, eq, inArray, type SQLWrapper, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { nonEmptyText } from '../../lib/text.js';
import { agents, environments, organizations, projects, users } from './tenancy.tables.js';

interface NamedRecord {
  organizationId: SQLWrapper;
  id: SQLWrapper;
}

/** A person by their name, or by their email when the name is blank (whitespace only). */
const personName = sql<string | null>`COALESCE(
  NULLIF(regexp_replace(${users.name}, '^[[:space:]]+|[[:space:]]+$', '', 'g'), ''), ${users.email})`;

type OwnNamed = typeof projects | typeof environments | typeof agents;

/** A row of the given organization by its name: another organization's row of the same id is never read. */
const currentName = (table: OwnNamed) => (record: NamedRecord) =>
  sql<string | null>`(SELECT ${table.name} FROM ${table}
    WHERE ${table.organizationId} = ${record.organizationId} AND ${table.id} = ${record.id})`;

/** What a deleted project, environment or agent was called, as the event that deleted or renamed it says. */
function recordedName(details: Readonly<Record<string, unknown>>): string | null {
  const to = details.to as Readonly<Record<string, unknown>> | string | null | undefined;
  return nonEmptyText(details.name) ?? (typeof to === 'object' ? nonEmptyText(to?.name) : nonEmptyText(to));
}

export function tenancyAuditNames({ db }: Pick<Database, 'db'>) {
  const namesOf = (table: typeof projects | typeof environments) => (organizationId: string, ids: string[]) =>
    db
      .select({ id: table.id, name: table.name })
      .from(table)
      .where(and(eq(table.organizationId, organizationId), inArray(table.id, ids)));
  // A person an event names (who acted, who was changed, who invited) may have left the organization since:
  // the event was written by Cadre, so the id is one this organization's trail holds, not one a client sent.
  const person = (record: NamedRecord) =>
    sql<string | null>`(SELECT ${personName} FROM ${users} WHERE ${users.id} = ${record.id})`;
  return {
    user: {
      current: person,
      ofIds: (_organizationId: string, ids: string[]) =>
        db.select({ id: users.id, name: personName }).from(users).where(inArray(users.id, ids)),
    },
    organization: {
      current: (record: NamedRecord) => sql<string | null>`(SELECT ${organizations.name} FROM ${organizations}
        WHERE ${organizations.id} = ${record.organizationId} AND ${organizations.id} = ${record.id})`,
    },
    project: { current: currentName(projects), ofIds: namesOf(projects), recorded: recordedName },
    environment: { current: currentName(environments), ofIds: namesOf(environments), recorded: recordedName },
    agent: { current: currentName(agents), recorded: recordedName },
  };
}
