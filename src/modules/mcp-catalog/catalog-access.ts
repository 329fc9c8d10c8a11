import { LRUCache } from 'lru-cache';
import type { Database, Tx } from '../../db/client.js';
import { unauthorized } from '../../http/auth.js';
import { notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { randomBase62, sha256Hex } from '../../lib/secrets.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import type { TenancyService } from '../tenancy/index.js';
import type { CatalogGate, createCatalogCache } from './catalog.cache.js';
import * as repo from './mcp-catalog.repo.js';
import type { CatalogAccess } from './mcp-catalog.tables.js';
import { iso } from './present.js';

/** A catalog a read resolved to: whose it is (the answers name its slug). */
export interface Catalog {
  organizationId: string;
  slug: string;
  /** The access mode the read was let in under: answers are cached per mode. */
  access: CatalogAccess;
}

/** The catalog's write: a transaction that tells every instance the catalog changed once it commits. */
export type CatalogWrite = <T>(organizationId: string, work: (tx: Tx) => Promise<T>) => Promise<T>;

export interface CatalogAccessDeps {
  database: Database;
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization'>;
  /** The origin IDEs reach Cadre at (CADRE_PUBLIC_URL), for the catalog URLs shown to admins. */
  publicUrl: () => string;
  cache: ReturnType<typeof createCatalogCache>;
  write: CatalogWrite;
}

/** Without a row, a catalog is private and read with a Bearer key: nothing is exposed until an admin says so. */
const DEFAULT_ACCESS: CatalogAccess = 'key';

/**
 * Who may read a catalog (docs/mcp-registry.md, "Who may read"): the gate of every v0.1 read, by the
 * organization's address or by its catalog link, and the settings owners and admins change (access, link).
 */
export function createCatalogAccess(deps: CatalogAccessDeps) {
  const { db } = deps.database;
  const { cache } = deps;
  const origin = () => deps.publicUrl().replace(/\/$/, '');

  // An organization's id and slug never change (tenancy's organizations.service.ts): once read, right for
  // the process's life.
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
      url: `${origin()}/mcp/${organization.slug}`,
      linkCreated: Boolean(row?.linkSecretHash),
      updatedAt: row ? iso(row.updatedAt) : null,
    };
  }

  /** Changes who may read the catalog; audited as mcp_catalog.access_changed. */
  async function setAccess(principal: Principal, access: CatalogAccess) {
    requirePermission(principal, 'mcp:write');
    await deps.write(principal.organizationId, async (tx) => {
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
    await deps.write(organization.id, async (tx) => {
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
    return { url: `${origin()}/mcp/-/${secret}` };
  }

  return { bySlug, byLink, settings, setAccess, rotateLink };
}
