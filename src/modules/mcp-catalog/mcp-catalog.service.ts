import type { ChangeBus } from '../../db/change-bus.js';
import type { Database, Executor } from '../../db/client.js';
import { ApiError, notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { recordAuditEvent } from '../audit/index.js';
import type { TenancyService } from '../tenancy/index.js';
import { createCatalogCache, MCP_CATALOG_CHANGED } from './catalog.cache.js';
import { type Catalog, type CatalogWrite, createCatalogAccess } from './catalog-access.js';
import { createCatalogPublishing } from './catalog-publishing.js';
import { createCatalogApprovals } from './mcp-catalog.approvals.js';
import * as repo from './mcp-catalog.repo.js';
import type { ListServersQuery, ServerListAnswer } from './mcp-catalog.schemas.js';
import { present } from './present.js';

export type { Catalog } from './catalog-access.js';

export interface McpCatalogServiceDeps {
  database: Database;
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization'>;
  /** The origin IDEs reach Cadre at (CADRE_PUBLIC_URL), for the catalog URLs shown to admins. */
  publicUrl: () => string;
  bus: Pick<ChangeBus, 'commit' | 'subscribe' | 'isLive'>;
  /**
   * Whether the organization's publish policy holds a version that widens access for approval
   * (approvalRequiredForWidening, docs/registry.md): a port the registry's policy answers, read in the publish's
   * transaction.
   */
  approvalRequired: (executor: Executor, organizationId: string) => Promise<boolean>;
  /** Read answers kept per instance (0 disables the cache). */
  cacheEntries?: number;
}

export type McpCatalogService = ReturnType<typeof createMcpCatalogService>;

/** A package (registry type, identifier, exact version) or a remote URL a catalog server may list. */
export type CatalogEntryRef =
  | { kind: 'package'; registryType: string; identifier: string; version: string }
  | { kind: 'remote'; url: string };

/** A read's answer as sent (JSON bytes), and whether this instance's cache held it. */
export interface Answer {
  body: Buffer;
  from: 'cache' | 'database';
}

/**
 * Each organization's MCP catalog (docs/mcp-registry.md): reads in the MCP Registry's v0.1 API under the
 * organization's own address, as its access setting allows (catalog-access.ts); publishing and status
 * changes (catalog-publishing.ts) and approvals (mcp-catalog.approvals.ts) through the management API, each
 * write audited in its transaction (the audit trail derives the events webhooks deliver).
 */
export function createMcpCatalogService(deps: McpCatalogServiceDeps) {
  const { db } = deps.database;
  const cache = createCatalogCache(deps.bus, deps.cacheEntries ?? 10_000);

  /**
   * Runs a write to an organization's catalog in a transaction that tells every instance after commit, and
   * forgets the catalog here at once.
   */
  const write: CatalogWrite = (organizationId, work) =>
    deps.bus.commit(
      async (tx, publish) => {
        const value = await work(tx);
        await publish({ topic: MCP_CATALOG_CHANGED, organizationId });
        return value;
      },
      (change: { topic: string; organizationId: string }) => cache.invalidate(change.organizationId),
    );

  /**
   * A read's answer as sent (JSON bytes): from this instance's cache when a read of the same thing under
   * the same access mode stored it since the catalog last changed, else from `read`.
   */
  function answered(catalog: Catalog, what: string, read: () => Promise<unknown>): Answer | Promise<Answer> {
    const cached = cache.answer(catalog.organizationId, catalog.access, what);
    if (cached) return { body: cached, from: 'cache' };
    const token = cache.token();
    return read().then((value) => {
      const body = Buffer.from(JSON.stringify(value));
      cache.setAnswer(catalog.organizationId, catalog.access, what, body, token);
      return { body, from: 'database' };
    });
  }

  /**
   * A page of the list. `queryText` is the request's query string as sent, the answer's cache key: the same
   * text always parses to the same query, so `parseQuery` (validation) runs only when the answer is read
   * (a text answered before was valid), and no key is built from the parsed query on every read (a query
   * spelled another way is stored once more, within the cache's bounds).
   */
  function list(
    catalog: Catalog,
    queryText: string,
    parseQuery: () => ListServersQuery,
  ): Answer | Promise<Answer> {
    return answered(catalog, `list?${queryText}`, () => readList(catalog, parseQuery()));
  }

  async function readList(catalog: Catalog, query: ListServersQuery): Promise<ServerListAnswer> {
    const after = query.cursor === undefined ? undefined : repo.decodeCursor(query.cursor);
    if (query.cursor !== undefined && !after) throw new ApiError('bad_request', 'Invalid cursor');
    const rows = await repo.listVersions(db, catalog.organizationId, {
      after,
      limit: query.limit + 1,
      search: query.search,
      updatedSince: query.updated_since === undefined ? undefined : new Date(query.updated_since),
      version: query.version,
      // Mirrors syncing incrementally must see deletions: updated_since includes deleted versions.
      includeDeleted: query.include_deleted ?? query.updated_since !== undefined,
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      servers: page.map((row) => present(row)),
      metadata: {
        count: page.length,
        ...(rows.length > query.limit && last ? { nextCursor: repo.encodeCursor(last) } : {}),
      },
    };
  }

  function versions(catalog: Catalog, name: string, includeDeleted = false) {
    return answered(catalog, JSON.stringify(['versions', name, includeDeleted]), async () => {
      const all = (await repo.versionsOf(db, catalog.organizationId, name)).filter(repo.isListed);
      const shown = all.filter((row) => includeDeleted || row.status !== 'deleted').reverse();
      if (shown.length === 0) throw notFound(`Server ${name}`);
      return { servers: shown.map((row) => present(row)), metadata: { count: shown.length } };
    });
  }

  function version(catalog: Catalog, name: string, wanted: string, includeDeleted = false) {
    return answered(catalog, JSON.stringify(['version', name, wanted, includeDeleted]), async () => {
      const all = (await repo.versionsOf(db, catalog.organizationId, name)).filter(repo.isListed);
      const row = all.find((candidate) =>
        wanted === 'latest' ? candidate.isLatest : candidate.version === wanted,
      );
      if (!row || (row.status === 'deleted' && !includeDeleted))
        throw notFound(`Server ${name} version ${wanted}`);
      return present(row);
    });
  }

  /**
   * The packages and endpoints no active server version of the organization's catalog lists: the lookup of
   * the publish-policy rule "skills come from the catalog" (docs/registry.md), in the publish's transaction.
   */
  async function missingFromCatalog<T extends CatalogEntryRef>(
    executor: Executor,
    organizationId: string,
    refs: T[],
  ): Promise<T[]> {
    const missing: T[] = [];
    for (const ref of refs) {
      const entry =
        ref.kind === 'package'
          ? {
              packages: [
                { registryType: ref.registryType, identifier: ref.identifier, version: ref.version },
              ],
            }
          : { remotes: [{ url: ref.url }] };
      if (!(await repo.activeVersionLists(executor, organizationId, entry))) missing.push(ref);
    }
    return missing;
  }

  const access = createCatalogAccess({ ...deps, cache, write });
  const publishing = createCatalogPublishing({ ...deps, write });
  const approvals = createCatalogApprovals({
    database: deps.database,
    clock: deps.clock,
    write,
    audit: recordAuditEvent,
  });

  return {
    approvals,
    ...access,
    missingFromCatalog,
    list,
    versions,
    version,
    ...publishing,
  };
}
