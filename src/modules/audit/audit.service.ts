import type { Database } from '../../db/client.js';
import { forbidden } from '../../http/errors.js';
import { decodeCursor, encodeCursor } from '../../http/seq-cursor.js';
import { cursorPage } from '../../lib/page.js';
import { can, type Principal } from '../auth/index.js';
import type { TenancyService } from '../tenancy/index.js';
import { type AuditPageRow, createAuditEventReads } from './audit.repo.js';
import {
  AUDIT_EXPORT_LIMIT,
  type AuditEventRecord,
  type ExportAuditEventsQuery,
  type ListAuditEventsQuery,
} from './audit.schemas.js';
import { type AuditRecordNames, targetNames } from './audit-names.js';
import { type AuditReference, createReferenceNames } from './audit-references.js';

export interface AuditServiceDeps {
  database: Database;
  tenancy: Pick<TenancyService, 'ownOrganizationId' | 'organizationSlug'>;
  /** How each kind of record an event names is named, by the module that owns it (./audit-names.ts). */
  names: AuditRecordNames;
}

export type AuditService = ReturnType<typeof createAuditService>;

const EXPORT_BATCH = 500;

const presentAuditEvent = (
  row: AuditPageRow,
  targetName: string | null,
  references: AuditReference[],
): AuditEventRecord => ({
  id: row.id,
  action: row.action,
  actor: {
    kind: row.actorKind,
    userId: row.actorUserId,
    apiKeyId: row.actorApiKeyId,
    name: row.actorName,
  },
  target: { type: row.targetType, id: row.targetId, name: targetName },
  metadata: row.metadata,
  references,
  createdAt: row.createdAt,
});

/** The organization's own audit trail, for its owners and admins (docs/organization-api.md). */
export function createAuditService({ database, tenancy, names }: AuditServiceDeps) {
  const listAuditEventRows = createAuditEventReads(database, names);
  const targetName = targetNames(names);
  const referenceNames = createReferenceNames(names);
  /** A page of rows as the API answers them, with the names of what their details refer to. */
  const present = async (organizationId: string, rows: AuditPageRow[]) => {
    const references = await referenceNames(organizationId, rows);
    return rows.map((row, index) => presentAuditEvent(row, targetName(row), references[index] ?? []));
  };

  /** The caller's own organization, if it may read its trail: another organization, known or not, is 404. */
  async function readable(principal: Principal, organizationIdOrSlug: string) {
    const organizationId = await tenancy.ownOrganizationId(principal, organizationIdOrSlug);
    if (!can(principal, 'audit:read', { kind: 'organization', organizationId })) {
      throw forbidden('Missing permission audit:read');
    }
    return organizationId;
  }

  const filtersOf = (query: ExportAuditEventsQuery | ListAuditEventsQuery) => ({
    action: query.action,
    actor: query.actor,
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
  });

  return {
    async list(principal: Principal, organizationIdOrSlug: string, query: ListAuditEventsQuery) {
      const organizationId = await readable(principal, organizationIdOrSlug);
      const rows = await listAuditEventRows(organizationId, {
        limit: query.limit,
        before: query.cursor ? decodeCursor(query.cursor) : undefined,
        ...filtersOf(query),
      });
      const page = cursorPage(
        rows,
        query.limit,
        (last) => encodeCursor(last.seq),
        (row) => row,
      );
      return { data: await present(organizationId, page.items), pagination: page.pagination };
    },

    /**
     * The filtered range for a download, newest first, read in keyset batches so memory stays flat; at most
     * AUDIT_EXPORT_LIMIT events. Permission is checked before the first byte (a refusal is a normal error).
     */
    async export(principal: Principal, organizationIdOrSlug: string, query: ExportAuditEventsQuery) {
      const organizationId = await readable(principal, organizationIdOrSlug);
      const slug = (await tenancy.organizationSlug(organizationId)) ?? organizationId;
      const filters = filtersOf(query);
      async function* events(): AsyncGenerator<AuditEventRecord> {
        let before: number | undefined;
        let sent = 0;
        while (sent < AUDIT_EXPORT_LIMIT) {
          const limit = Math.min(EXPORT_BATCH, AUDIT_EXPORT_LIMIT - sent);
          const rows = (await listAuditEventRows(organizationId, { limit, before, ...filters })).slice(
            0,
            limit,
          );
          if (rows.length === 0) return;
          for (const event of await present(organizationId, rows)) yield event;
          sent += rows.length;
          if (rows.length < limit) return;
          before = rows[rows.length - 1]?.seq;
        }
      }
      return { slug, events };
    },
  };
}
