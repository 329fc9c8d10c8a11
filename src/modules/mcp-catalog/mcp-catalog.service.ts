import { LRUCache } from 'lru-cache';
import type { ChangeBus } from '../../db/change-bus.js';
import type { Database, Executor, Tx } from '../../db/client.js';
import { unauthorized } from '../../http/auth.js';
import { ApiError, notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { randomBase62, sha256Hex } from '../../lib/secrets.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import type { TenancyService } from '../tenancy/tenancy.service.js';
import { type CatalogGate, createCatalogCache, MCP_CATALOG_CHANGED } from './catalog.cache.js';
import { latestOf } from './latest.js';
import { createCatalogApprovals } from './mcp-catalog.approvals.js';
import * as repo from './mcp-catalog.repo.js';
import {
  CADRE_META_KEY,
  type ListServersQuery,
  OFFICIAL_META_KEY,
  type ServerAnswer,
  type ServerListAnswer,
  type StatusChange,
} from './mcp-catalog.schemas.js';
import type { CatalogAccess, ServerVersionRow } from './mcp-catalog.tables.js';
import type { ServerJson } from './server-json.schemas.js';
import { wideningReasons } from './widening.js';

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

/** A catalog a read resolved to: whose it is (the answers name its slug). */
export interface Catalog {
  organizationId: string;
  slug: string;
  /** The access mode the read was let in under: answers are cached per mode. */
  access: CatalogAccess;
}

/** A package (registry type, identifier, exact version) or a remote URL a catalog server may list. */
export type CatalogEntryRef =
  | { kind: 'package'; registryType: string; identifier: string; version: string }
  | { kind: 'remote'; url: string };

/** A read's answer as sent (JSON bytes), and whether this instance's cache held it. */
export interface Answer {
  body: Buffer;
  from: 'cache' | 'database';
}

/** Without a row, a catalog is private and read with a Bearer key: nothing is exposed until an admin says so. */
const DEFAULT_ACCESS: CatalogAccess = 'key';

const iso = (date: Date) => date.toISOString();

/** A version as answered; one waiting for approval, or refused, says so (the v0.1 reads never show one). */
function present(row: ServerVersionRow, catalog: Pick<Catalog, 'slug'>): ServerAnswer {
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

/**
 * Each organization's MCP catalog (docs/mcp-registry.md): reads in the MCP Registry's v0.1 API under the
 * organization's own address, as its access setting allows; publishing and status changes through the
 * management API, audited in their transaction (the audit trail derives the events webhooks deliver).
 */
export function createMcpCatalogService(deps: McpCatalogServiceDeps) {
  const { db } = deps.database;
  const catalogUrl = (slug: string) => `${deps.publicUrl().replace(/\/$/, '')}/mcp/${slug}`;

  const cache = createCatalogCache(deps.bus, deps.cacheEntries ?? 10_000);
  // An organization's id and slug never change (tenancy.service.ts): once read, right for the process's life.
  const organizations = new LRUCache<string, { id: string; slug: string }>({ max: 10_000 });
  async function organizationOf(idOrSlug: string) {
    const cached = organizations.get(idOrSlug);
    if (cached) return cached;
    const { id, slug } = await deps.tenancy.getOrganization(idOrSlug);
    organizations.set(id, { id, slug }).set(slug, { id, slug });
    return { id, slug };
  }

  /** Who may read an organization's catalog: from this instance's cache, else the database. */
  async function gateOf(organizationId: string): Promise<CatalogGate> {
    const cached = cache.gate(organizationId);
    if (cached) return cached;
    const token = cache.token();
    const row = await repo.readCatalog(db, organizationId);
    const gate = { access: row?.access ?? DEFAULT_ACCESS, linkSecretHash: row?.linkSecretHash ?? null };
    cache.setGate(organizationId, gate, token);
    return gate;
  }

  /**
   * The catalog at `/mcp/{slug}`: public to anyone; otherwise to the organization's keys with mcp:read.
   * Synchronous when this instance holds the organization and its gate (the hot path costs no promise).
   */
  function bySlug(slug: string, principal: Principal | null): Catalog | Promise<Catalog> {
    const known = organizations.get(slug);
    const gate = known && cache.gate(known.id);
    if (known && gate) return admit(known, gate.access, principal, slug);
    return (async () => {
      const organization = await organizationOf(slug);
      return admit(organization, (await gateOf(organization.id)).access, principal, slug);
    })();
  }

  function admit(
    organization: { id: string; slug: string },
    access: CatalogAccess,
    principal: Principal | null,
    asked: string,
  ): Catalog {
    const catalog = { organizationId: organization.id, slug: organization.slug, access };
    if (access === 'public') return catalog;
    if (!principal) throw unauthorized('This catalog is private: send a Bearer key with mcp:read');
    // Another organization's private catalog reads as absent.
    if (principal.organizationId !== organization.id) throw notFound(`Organization ${asked}`);
    requirePermission(principal, 'mcp:read');
    return catalog;
  }

  /** The catalog behind a catalog link (`/mcp/-/{secret}`), while its organization chose link access. */
  function byLink(secret: string): Catalog | Promise<Catalog> {
    const hash = sha256Hex(secret);
    const owner = cache.linkOwner(hash);
    const gate = owner === undefined ? undefined : cache.gate(owner);
    const known = owner === undefined ? undefined : organizations.get(owner);
    if (gate && known) return linked(known, gate);
    return (async () => {
      const token = cache.token();
      const row = await repo.catalogByLinkHash(db, hash);
      if (!row) throw notFound('Catalog');
      const found = { access: row.access, linkSecretHash: row.linkSecretHash };
      cache.setGate(row.organizationId, found, token);
      return linked(await organizationOf(row.organizationId), found);
    })();
  }

  function linked(organization: { id: string; slug: string }, gate: CatalogGate): Catalog {
    if (gate.access !== 'link') throw notFound('Catalog');
    return { organizationId: organization.id, slug: organization.slug, access: gate.access };
  }

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

  function list(catalog: Catalog, query: ListServersQuery): Answer | Promise<Answer> {
    const { cursor, limit, search, updated_since, version, include_deleted } = query;
    const what = JSON.stringify(['list', cursor, limit, search, updated_since, version, include_deleted]);
    return answered(catalog, what, () => readList(catalog, query));
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
      servers: page.map((row) => present(row, catalog)),
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
      return { servers: shown.map((row) => present(row, catalog)), metadata: { count: shown.length } };
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
      return present(row, catalog);
    });
  }

  /**
   * Runs a write to an organization's catalog in a transaction that tells every instance after commit, and
   * forgets the catalog here at once.
   */
  const write = <T>(organizationId: string, work: (tx: Tx) => Promise<T>): Promise<T> =>
    deps.bus.commit(
      async (tx, publish) => {
        const value = await work(tx);
        await publish({ topic: MCP_CATALOG_CHANGED, organizationId });
        return value;
      },
      (change: { topic: string; organizationId: string }) => cache.invalidate(change.organizationId),
    );

  async function settings(principal: Principal) {
    requirePermission(principal, 'mcp:read');
    return settingsOf(principal.organizationId);
  }

  /** What the management API shows of a catalog (after the caller's permission was checked). */
  async function settingsOf(organizationId: string) {
    const organization = await deps.tenancy.getOrganization(organizationId);
    const row = await repo.readCatalog(db, organization.id);
    return {
      access: row?.access ?? DEFAULT_ACCESS,
      organization: organization.slug,
      url: catalogUrl(organization.slug),
      linkCreated: Boolean(row?.linkSecretHash),
      updatedAt: row ? iso(row.updatedAt) : null,
    };
  }

  /** Changes who may read the catalog; audited as mcp_catalog.access_changed. */
  async function setAccess(principal: Principal, access: CatalogAccess) {
    requirePermission(principal, 'mcp:write');
    await write(principal.organizationId, async (tx) => {
      const before = (await repo.readCatalog(tx, principal.organizationId))?.access ?? DEFAULT_ACCESS;
      if (before === access) return;
      const at = deps.clock.now();
      await repo.writeCatalog(tx, {
        organizationId: principal.organizationId,
        access,
        updatedAt: at,
        updatedByUserId: principal.userId,
      });
      await recordAuditEvent(tx, {
        organizationId: principal.organizationId,
        action: 'mcp_catalog.access_changed',
        actor: principal,
        target: { type: 'mcp_catalog', id: principal.organizationId },
        at,
        metadata: { from: before, to: access },
      });
    });
    return settingsOf(principal.organizationId);
  }

  /**
   * Makes a new catalog link, ending the previous one at once; the secret is answered once and kept only as
   * its hash. Audited as mcp_catalog.link_rotated (never with the secret).
   */
  async function rotateLink(principal: Principal) {
    requirePermission(principal, 'mcp:write');
    const secret = randomBase62(43);
    const organization = await deps.tenancy.getOrganization(principal.organizationId);
    await write(organization.id, async (tx) => {
      const at = deps.clock.now();
      const access = (await repo.readCatalog(tx, organization.id))?.access ?? DEFAULT_ACCESS;
      await repo.writeCatalog(tx, {
        organizationId: organization.id,
        access,
        linkSecretHash: sha256Hex(secret),
        updatedAt: at,
        updatedByUserId: principal.userId,
      });
      await recordAuditEvent(tx, {
        organizationId: organization.id,
        action: 'mcp_catalog.link_rotated',
        actor: principal,
        target: { type: 'mcp_catalog', id: organization.id },
        at,
      });
    });
    return { url: `${deps.publicUrl().replace(/\/$/, '')}/mcp/-/${secret}` };
  }

  /**
   * Publishes one server version. Versions are immutable: publishing one that exists is a 409 (a waiting or
   * refused version's number too). `latest` moves to the newest by semver (latest.ts). Under the policy's
   * approvalRequiredForWidening, a version that widens access over the latest one (widening.ts) waits for
   * approval instead: on no list, never `latest` (mcp-catalog.approvals.ts). Audited as mcp_server.published.
   */
  async function publish(principal: Principal, server: ServerJson): Promise<ServerAnswer> {
    requirePermission(principal, 'mcp:write');
    const organization = await deps.tenancy.getOrganization(principal.organizationId);
    const catalog = { organizationId: organization.id, slug: organization.slug };
    const id = newId();
    return write(organization.id, async (tx) => {
      await repo.lockServerName(tx, organization.id, server.name);
      const existing = await repo.versionsOf(tx, organization.id, server.name);
      if (existing.some((row) => row.version === server.version)) {
        throw new ApiError(
          'conflict',
          `${server.name} ${server.version} is already published; versions are immutable, publish a new one`,
        );
      }
      const at = deps.clock.now();
      // Compared with the version IDEs are given now: the latest listed one (none for a name's first).
      const previous = existing.find((candidate) => candidate.isLatest);
      const reasons = (await deps.approvalRequired(tx, organization.id))
        ? wideningReasons(server, previous?.server as Partial<ServerJson> | undefined)
        : [];
      const waits = reasons.length > 0;
      const row: ServerVersionRow = {
        id,
        organizationId: organization.id,
        name: server.name,
        version: server.version,
        server,
        status: 'active',
        statusMessage: null,
        statusChangedAt: at,
        isLatest: false,
        publishedAt: at,
        updatedAt: at,
        publishedByUserId: principal.userId,
        approval: waits ? 'pending' : null,
        approvalReasons: waits ? reasons : null,
        approvalPreviousVersion: waits ? (previous?.version ?? null) : null,
        approvalDecidedByUserId: null,
        approvalDecidedAt: null,
      };
      const latest = waits ? undefined : latestOf([...existing.filter(repo.isListed), row]);
      row.isLatest = latest === row;
      // The unique index on latest versions holds one per name: the old one steps down first.
      if (row.isLatest && previous)
        await repo.updateVersion(tx, previous.id, { isLatest: false, updatedAt: at });
      await repo.insertVersion(tx, row);
      await recordAuditEvent(tx, {
        organizationId: organization.id,
        action: 'mcp_server.published',
        actor: principal,
        target: { type: 'mcp_server', id: `${server.name}@${server.version}` },
        at,
        metadata: {
          serverVersionId: id,
          isLatest: row.isLatest,
          ...(waits ? { awaitingApproval: { reasons } } : {}),
        },
      });
      return present(row, catalog);
    });
  }

  /**
   * Changes one version's status (active, deprecated with a message, deleted); `latest` moves off a deleted
   * version. Audited as mcp_server.status_changed. Setting the status it has is a 400, as in the registry.
   */
  async function setStatus(principal: Principal, name: string, version: string, change: StatusChange) {
    requirePermission(principal, 'mcp:write');
    const organization = await deps.tenancy.getOrganization(principal.organizationId);
    const catalog = { organizationId: organization.id, slug: organization.slug };
    return write(organization.id, async (tx) => {
      await repo.lockServerName(tx, organization.id, name);
      const all = await repo.versionsOf(tx, organization.id, name);
      const row = all.find((candidate) => candidate.version === version);
      if (!row) throw notFound(`Server ${name} version ${version}`);
      const message = change.status === 'active' ? null : (change.statusMessage ?? null);
      if (row.status === change.status && row.statusMessage === message) {
        throw new ApiError('bad_request', `No changes to apply: status is already ${change.status}`);
      }
      const at = deps.clock.now();
      const updated: ServerVersionRow = {
        ...row,
        status: change.status,
        statusMessage: message,
        statusChangedAt: at,
        updatedAt: at,
      };
      const next = all.map((candidate) => (candidate.id === row.id ? updated : candidate));
      // A version waiting for approval, or refused, never holds latest.
      const latest = latestOf(next.filter(repo.isListed));
      // Step the old latest down before another takes it (one latest per name, a unique index).
      for (const candidate of next) {
        const isLatest = candidate === latest;
        if (candidate.isLatest && !isLatest) {
          await repo.updateVersion(tx, candidate.id, { isLatest: false, updatedAt: at });
          candidate.isLatest = false;
        }
      }
      for (const candidate of next) {
        const isLatest = candidate === latest;
        if (candidate === updated) continue;
        if (isLatest && !candidate.isLatest)
          await repo.updateVersion(tx, candidate.id, { isLatest, updatedAt: at });
      }
      updated.isLatest = updated === latest;
      await repo.updateVersion(tx, row.id, {
        status: updated.status,
        statusMessage: updated.statusMessage,
        statusChangedAt: at,
        updatedAt: at,
        isLatest: updated.isLatest,
      });
      await recordAuditEvent(tx, {
        organizationId: organization.id,
        action: 'mcp_server.status_changed',
        actor: principal,
        target: { type: 'mcp_server', id: `${name}@${version}` },
        at,
        metadata: {
          serverVersionId: row.id,
          status: { from: row.status, to: change.status },
          ...(message ? { statusMessage: message } : {}),
        },
      });
      return present(updated, catalog);
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

  const approvals = createCatalogApprovals({
    database: deps.database,
    clock: deps.clock,
    write,
    audit: recordAuditEvent,
  });

  return {
    approvals,
    bySlug,
    byLink,
    missingFromCatalog,
    list,
    versions,
    version,
    settings,
    setAccess,
    rotateLink,
    publish,
    setStatus,
  };
}
