import type { Executor } from '../../db/client.js';
import { ApiError, notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import type { TenancyService } from '../tenancy/index.js';
import type { CatalogWrite } from './catalog-access.js';
import { latestOf } from './latest.js';
import * as repo from './mcp-catalog.repo.js';
import type { ManagedServerAnswer, StatusChange } from './mcp-catalog.schemas.js';
import type { ServerVersionRow } from './mcp-catalog.tables.js';
import { presentManaged } from './present.js';
import type { ServerJson } from './server-json.schemas.js';
import { wideningReasons } from './widening.js';

export interface CatalogPublishingDeps {
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization'>;
  /** Whether the organization's publish policy holds a version that widens access for approval. */
  approvalRequired: (executor: Executor, organizationId: string) => Promise<boolean>;
  write: CatalogWrite;
}

/**
 * A catalog's versions as owners and admins change them (docs/mcp-registry.md, "Versions, latest and
 * status"): publishing an immutable version and changing a version's status, each moving `latest` as semver
 * says and audited in its transaction.
 */
export function createCatalogPublishing(deps: CatalogPublishingDeps) {
  /**
   * Publishes one server version. Versions are immutable: publishing one that exists is a 409 (a waiting or
   * refused version's number too). `latest` moves to the newest by semver (latest.ts). Under the policy's
   * approvalRequiredForWidening, a version that widens access over the latest one (widening.ts) waits for
   * approval instead: on no list, never `latest` (mcp-catalog.approvals.ts). Audited as mcp_server.published.
   */
  async function publish(principal: Principal, server: ServerJson): Promise<ManagedServerAnswer> {
    requirePermission(principal, 'mcp:write');
    const organization = await deps.tenancy.getOrganization(principal.organizationId);
    const catalog = { organizationId: organization.id, slug: organization.slug };
    const id = newId();
    return deps.write(organization.id, async (tx) => {
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
      return presentManaged(row, catalog);
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
    return deps.write(organization.id, async (tx) => {
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
      return presentManaged(updated, catalog);
    });
  }

  return { publish, setStatus };
}
