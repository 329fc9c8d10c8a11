import type { Database } from '../../db/client.js';
import { ApiError, forbidden, notFound } from '../../http/errors.js';
import { cursorPage } from '../../lib/page.js';
import { decodeCursor, encodeCursor } from '../api-keys/api-key-cursor.js';
import { can, type Principal } from '../auth/permissions.js';
import type { TenancyService } from '../tenancy/tenancy.service.js';
import { type AuditEventRow, listAuditEventRows } from './audit.repo.js';
import type { AuditEventRecord, ListAuditEventsQuery } from './audit.schemas.js';

export interface AuditServiceDeps {
  database: Database;
  tenancy: Pick<TenancyService, 'getOrganization'>;
}

export type AuditService = ReturnType<typeof createAuditService>;

const presentAuditEvent = (row: AuditEventRow): AuditEventRecord => ({
  id: row.id,
  action: row.action,
  actor: { kind: row.actorKind, userId: row.actorUserId, apiKeyId: row.actorApiKeyId },
  target: { type: row.targetType, id: row.targetId },
  metadata: row.metadata,
  createdAt: row.createdAt.toISOString(),
});

/** The organization's own audit trail, for its owners and admins (docs/organization-api.md). */
export function createAuditService({ database, tenancy }: AuditServiceDeps) {
  const { db } = database;

  return {
    async list(principal: Principal, organizationIdOrSlug: string, query: ListAuditEventsQuery) {
      // Another organization, known or not, reads as absent.
      const organization = await tenancy.getOrganization(organizationIdOrSlug).catch((error: unknown) => {
        if (error instanceof ApiError && error.code === 'not_found') return undefined;
        throw error;
      });
      if (!organization || organization.id !== principal.organizationId) {
        throw notFound(`Organization ${organizationIdOrSlug}`);
      }
      if (!can(principal, 'audit:read', { kind: 'organization', organizationId: organization.id })) {
        throw forbidden('Missing permission audit:read');
      }
      const rows = await listAuditEventRows(db, organization.id, {
        limit: query.limit,
        before: query.cursor ? decodeCursor(query.cursor) : undefined,
        action: query.action,
        actor: query.actor,
      });
      const page = cursorPage(rows, query.limit, (last) => encodeCursor(last.seq), presentAuditEvent);
      return { data: page.items, pagination: page.pagination };
    },
  };
}
