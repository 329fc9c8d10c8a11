import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { batchedReads } from '../../db/batched-reads.js';
import type { Database } from '../../db/client.js';
import { apiKeys } from './api-keys.tables.js';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

const organizationId = sql.placeholder('organizationId');
const userId = sql.placeholder('userId');
const before = sql.placeholder('before');
const limit = sql.placeholder('limit');

/**
 * The key reads of the management API's hot paths, each built and named once (docs/performance.md): a
 * prepared statement PostgreSQL parses and plans once per connection instead of on every request.
 */
export function createApiKeyReads({ db, connections }: Pick<Database, 'db' | 'connections'>) {
  const byIds = db
    .select()
    .from(apiKeys)
    .where(sql`${apiKeys.id} = ANY(${sql.placeholder('ids')}::text[])`)
    .prepare('api_keys_by_ids');

  // The four shapes of a page (every key or the caller's own; first page or after a cursor), named apart so
  // each keeps a plan of its own.
  const pageOf = (own: boolean, after: boolean) =>
    db
      .select()
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.organizationId, organizationId),
          own ? eq(apiKeys.userId, userId) : undefined,
          after ? lt(apiKeys.seq, before) : undefined,
        ),
      )
      .orderBy(desc(apiKeys.seq))
      .limit(limit)
      .prepare(`api_keys_page_${own ? 'own' : 'all'}_${after ? 'after' : 'first'}`);
  const pages = {
    all: { first: pageOf(false, false), after: pageOf(false, true) },
    own: { first: pageOf(true, false), after: pageOf(true, true) },
  };

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
      const shape = pages[query.userId === undefined ? 'all' : 'own'];
      const statement = query.before === undefined ? shape.first : shape.after;
      return statement.execute({
        organizationId: query.organizationId,
        userId: query.userId,
        before: query.before,
        limit: query.limit,
      });
    },
  };
}
