import type { Database } from '../../db/client.js';
import { decodeCursor, encodeCursor } from '../../http/seq-cursor.js';
import { cursorPage } from '../../lib/page.js';
import { type Principal, requirePermission } from '../auth/index.js';
import { createEventReads, type EventPageRow } from './events.repo.js';
import type { EventRecord, ListEventsQuery } from './events.schemas.js';

export interface EventsServiceDeps {
  database: Database;
}

export type EventsService = ReturnType<typeof createEventsService>;

/** An event as the API answers it and as every delivery's body carries it. */
export const presentEvent = (row: EventPageRow): EventRecord => ({
  id: row.id,
  type: row.type as EventRecord['type'],
  organizationId: row.organizationId,
  actor: { kind: row.actorKind, userId: row.actorUserId, apiKeyId: row.actorApiKeyId },
  resource: { type: row.resourceType, id: row.resourceId },
  data: row.payload,
  createdAt: row.createdAt,
});

/** The organization's events, for clients that pull them instead of receiving webhooks (docs/webhooks.md). */
export function createEventsService({ database }: EventsServiceDeps) {
  const listEventRows = createEventReads(database);
  return {
    async list(principal: Principal, query: ListEventsQuery) {
      // Events tell about every kind of resource of the organization (members, keys, billing): organization-wide.
      requirePermission(principal, 'events:read');
      const rows = await listEventRows(principal.organizationId, {
        limit: query.limit,
        after: query.cursor ? decodeCursor(query.cursor) : undefined,
        order: query.order,
        types: query.type,
      });
      const page = cursorPage(rows, query.limit, (last) => encodeCursor(last.seq), presentEvent);
      return { data: page.items, pagination: page.pagination };
    },
  };
}
