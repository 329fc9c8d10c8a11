import { CADRE_META_KEY, OFFICIAL_META_KEY, type ServerAnswer } from './mcp-catalog.schemas.js';
import type { ServerVersionRow } from './mcp-catalog.tables.js';
import type { ServerJson } from './server-json.schemas.js';

export const iso = (date: Date) => date.toISOString();

/** A version as answered; one waiting for approval, or refused, says so (the v0.1 reads never show one). */
export function present(row: ServerVersionRow, catalog: { slug: string }): ServerAnswer {
  const waited = row.approval === 'pending' || row.approval === 'rejected';
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
