import {
  CADRE_META_KEY,
  type ManagedServerAnswer,
  OFFICIAL_META_KEY,
  type ServerAnswer,
} from './mcp-catalog.schemas.js';
import type { ServerVersionRow } from './mcp-catalog.tables.js';
import type { ServerJson } from './server-json.schemas.js';

export const iso = (date: Date) => date.toISOString();

/** A version as the v0.1 reads answer it: the `server.json` and the registry's own data, nothing else. */
export function present(row: ServerVersionRow): ServerAnswer {
  return {
    server: row.server as ServerJson,
    _meta: {
      [OFFICIAL_META_KEY]: {
        status: row.status,
        ...(row.statusMessage ? { statusMessage: row.statusMessage } : {}),
        statusChangedAt: iso(row.statusChangedAt),
        publishedAt: iso(row.publishedAt),
        updatedAt: iso(row.updatedAt),
        isLatest: row.isLatest,
      },
    },
  };
}

/**
 * A version as the management API answers it: with Cadre's id and organization; one waiting for approval,
 * or refused, says so.
 */
export function presentManaged(row: ServerVersionRow, catalog: { slug: string }): ManagedServerAnswer {
  const waited = row.approval === 'pending' || row.approval === 'rejected';
  const { server, _meta } = present(row);
  return {
    server,
    _meta: {
      ..._meta,
      [CADRE_META_KEY]: {
        id: row.id,
        organization: catalog.slug,
        ...(waited
          ? {
              approval: {
                status: row.approval as 'pending' | 'rejected',
                reasons: row.approvalReasons ?? [],
                previousVersion: row.approvalPreviousVersion,
              },
            }
          : {}),
      },
    },
  };
}
