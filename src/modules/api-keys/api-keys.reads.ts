import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { asLimit, batchedPages, columnsOf } from '../../db/batched-pages.js';
import { batchedReads } from '../../db/batched-reads.js';
import type { Database } from '../../db/client.js';
import { preparedShapes } from '../../db/prepared.js';
import { apiKeys } from './api-keys.tables.js';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** What each caller of a page gives (./batched-pages.ts). */
const PAGE_CALLERS = {
  organization_id: 'text',
  user_id: 'text',
  before: 'bigint',
  page_limit: 'int',
} as const;

/**
 * The key reads of the management API's hot paths, each built and named once (docs/performance.md): a
 * prepared statement PostgreSQL parses and plans once per connection instead of on every request.
 */
export function createApiKeyReads(database: Pick<Database, 'db' | 'connections'>) {
  const { db, connections } = database;
  const byIds = db
    .select()
    .from(apiKeys)
    .where(sql`${apiKeys.id} = ANY(${sql.placeholder('ids')}::text[])`)
    .prepare('api_keys_by_ids');

  // A page's four shapes (every key or the caller's own; first page or after a cursor) are statements of
  // their own, each with a plan of its own; the pages of one turn of one shape are one statement.
  const pages = preparedShapes('api_keys_pages', (shape: { own: boolean; after: boolean }, name) =>
    batchedPages<typeof PAGE_CALLERS, ApiKeyRow>(database, name, PAGE_CALLERS, (caller) => {
      const subquery = db
        .select()
        .from(apiKeys)
        .where(
          and(
            eq(apiKeys.organizationId, caller('organization_id')),
            shape.own ? eq(apiKeys.userId, caller('user_id')) : undefined,
            shape.after ? lt(apiKeys.seq, caller('before')) : undefined,
          ),
        )
        .orderBy(desc(apiKeys.seq))
        .limit(asLimit(caller('page_limit')))
        .as('page');
      return { subquery, fields: columnsOf(subquery, apiKeys), order: [desc(subquery.seq)] };
    }),
  );

  // The GETs of one event-loop turn (many callers asking for different keys) are one statement.
  const loader = batchedReads(async (ids: readonly string[]) => {
    const rows = await byIds.execute({ ids: [...new Set(ids)] });
    const found = new Map(rows.map((row) => [row.id, row]));
    return ids.map((key) => found.get(key));
  }, connections);

  return {
    /** The key, in any organization: the caller checks it is its own. */
    byId: (apiKeyId: string): Promise<ApiKeyRow | undefined> => loader.load(apiKeyId),

    /** Newest first; `userId` narrows to one member's keys, `before` continues after a cursor's `seq`. */
    page(query: {
      organizationId: string;
      userId?: string | undefined;
      before?: number | undefined;
      limit: number;
    }) {
      return pages({ own: query.userId !== undefined, after: query.before !== undefined })({
        organization_id: query.organizationId,
        user_id: query.userId,
        before: query.before,
        page_limit: query.limit,
      });
    },
  };
}
