import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { auditEvents } from './audit.tables.js';

/** Where a statement reads a record's name: its id, and the organization whose records alone may be named. */
interface NamedRecord {
  organizationId: SQLWrapper;
  id: SQLWrapper;
}

/**
 * How the audit log names one kind of record: a port (docs/architecture.md, "Module map"). The module that
 * owns the records provides it, the composition hands every kind's to the audit module, and the audit module
 * reads no other module's tables. A kind is named by the parts it provides.
 */
interface RecordNames {
  /**
   * The record's current name, null when it is gone: a scalar subquery (a primary-key read) of the statement
   * that reads a page of events, read only from the given organization.
   */
  current?: (record: NamedRecord) => SQL<string | null>;
  /** The current names of some of an organization's records, in one statement (an event's details name them). */
  ofIds?: (organizationId: string, ids: string[]) => Promise<Array<{ id: string; name: string | null }>>;
  /** The name an event's details recorded when it happened, for a record with no current name. */
  recorded?: (details: Readonly<Record<string, unknown>>, id: string) => string | null;
}

/** Each kind's names, by the type an event's target or a reference in its details gives it (`apiKey`, …). */
export type AuditRecordNames = Readonly<Record<string, RecordNames>>;

/** The current names a page of events reads with it, in the same statement (./audit.repo.ts). */
export interface ReadNames {
  actorName: string | null;
  targetName: string | null;
}

/** A kind is a code identifier (the target types modules record), so it is written into the SQL as a literal. */
const KIND = /^[A-Za-z]+$/;

/**
 * The expressions of ReadNames, over `audit_events`: the actor is a user, the target is of its own kind. They
 * are scalar subqueries, so they run for the rows a page returns only, after its limit.
 */
export function pageNames(names: AuditRecordNames) {
  const at = (id: SQLWrapper): NamedRecord => ({ organizationId: auditEvents.organizationId, id });
  const whens = Object.entries(names).flatMap(([kind, named]) => {
    if (!named.current) return [];
    if (!KIND.test(kind)) throw new Error(`audit names: a record kind is a plain identifier, not ${kind}`);
    // A literal, not a parameter: a prepared page takes only its callers' values (src/db/batched-pages.ts).
    return [sql`WHEN ${sql.raw(`'${kind}'`)} THEN ${named.current(at(auditEvents.targetId))}`];
  });
  const none = sql<string | null>`NULL::text`;
  return {
    actorName: (names.user?.current?.(at(auditEvents.actorUserId)) ?? none).as('actor_name'),
    targetName: (whens.length > 0
      ? sql<string | null>`CASE ${auditEvents.targetType} ${sql.join(whens, sql` `)} END`
      : none
    ).as('target_name'),
  };
}

/** What the change was made to, by its current name, or the name its details recorded when it happened. */
export const targetNames =
  (names: AuditRecordNames) =>
  (row: ReadNames & { targetType: string; targetId: string; metadata: Record<string, unknown> | null }) =>
    row.targetName || names[row.targetType]?.recorded?.(row.metadata ?? {}, row.targetId) || null;
