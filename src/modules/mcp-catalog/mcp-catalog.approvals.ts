import type { Database, Tx } from '../../db/client.js';
import { ApiError, forbidden, notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Principal, requirePermission } from '../auth/index.js';
import { latestOf } from './latest.js';
import * as repo from './mcp-catalog.repo.js';
import type { McpApproval } from './mcp-catalog.schemas.js';
import type { ApprovalStatus, ServerVersionRow } from './mcp-catalog.tables.js';

export interface CatalogApprovalsDeps {
  database: Database;
  clock: Clock;
  /** The catalog's write: a transaction that tells every instance the catalog changed once it commits. */
  write: <T>(organizationId: string, work: (tx: Tx) => Promise<T>) => Promise<T>;
  /** Records a decision in the audit log, in its transaction (the service's own recorder). */
  audit: (tx: Tx, event: CatalogAuditEvent) => Promise<unknown>;
}

/** A decision's audit event: who decided on which version, and how. */
export interface CatalogAuditEvent {
  organizationId: string;
  action: 'mcp_server.approved' | 'mcp_server.rejected';
  actor: Principal;
  target: { type: 'mcp_server'; id: string };
  at: Date;
  metadata: Record<string, unknown>;
}

function presentApproval(row: ServerVersionRow): McpApproval {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    status: row.approval as ApprovalStatus,
    previousVersion: row.approvalPreviousVersion,
    reasons: row.approvalReasons ?? [],
    publishedByUserId: row.publishedByUserId,
    publishedAt: row.publishedAt.toISOString(),
    decidedByUserId: row.approvalDecidedByUserId,
    decidedAt: row.approvalDecidedAt?.toISOString() ?? null,
  };
}

/**
 * The catalog's approval gate (docs/mcp-registry.md "Approval of versions that widen access"), with the
 * registry's rules for Experts: owners and admins (experts:approve) decide, never on a version they published;
 * a decision is final; two decisions at once serialize on the server name's lock and the second answers 409.
 * An approved version joins the catalog and takes `latest` if it is the newest by semver; a refused one never
 * does.
 */
export function createCatalogApprovals(deps: CatalogApprovalsDeps) {
  const { db } = deps.database;

  async function list(principal: Principal, status: ApprovalStatus) {
    requirePermission(principal, 'mcp:read');
    const rows = await repo.versionsByApproval(db, principal.organizationId, status);
    return rows.map(presentApproval);
  }

  async function decide(principal: Principal, approvalId: string, decision: 'approve' | 'reject') {
    requirePermission(principal, 'experts:approve');
    const organizationId = principal.organizationId;
    // Another organization's version, or one that never waited, reads as absent.
    const found = await repo.versionById(db, organizationId, approvalId);
    if (!found?.approval) throw notFound(`Approval ${approvalId}`);
    return deps.write(organizationId, async (tx) => {
      await repo.lockServerName(tx, organizationId, found.name);
      const all = await repo.versionsOf(tx, organizationId, found.name);
      const row = all.find((candidate) => candidate.id === found.id);
      if (!row?.approval) throw notFound(`Approval ${approvalId}`);
      const key = `${row.name}@${row.version}`;
      if (row.publishedByUserId === principal.userId) {
        throw forbidden(`You published ${key}: another owner or admin must decide on it`);
      }
      if (row.approval !== 'pending') {
        throw new ApiError(
          'conflict',
          `${key} was already ${row.approval} (${row.approvalDecidedAt?.toISOString() ?? 'earlier'})`,
        );
      }
      const at = deps.clock.now();
      const status = decision === 'approve' ? 'approved' : 'rejected';
      const decided: ServerVersionRow = {
        ...row,
        approval: status,
        approvalDecidedByUserId: principal.userId,
        approvalDecidedAt: at,
        updatedAt: at,
      };
      let movedLatest = false;
      if (status === 'approved') {
        const listed = all.map((candidate) => (candidate.id === row.id ? decided : candidate));
        const latest = latestOf(listed.filter(repo.isListed));
        const previous = all.find((candidate) => candidate.isLatest);
        if (latest === decided) {
          // One latest per name (a unique index): the old one steps down first.
          if (previous) await repo.updateVersion(tx, previous.id, { isLatest: false, updatedAt: at });
          decided.isLatest = true;
          movedLatest = true;
        }
      }
      await repo.updateVersion(tx, row.id, {
        approval: status,
        approvalDecidedByUserId: principal.userId,
        approvalDecidedAt: at,
        updatedAt: at,
        isLatest: decided.isLatest,
      });
      await deps.audit(tx, {
        organizationId,
        action: status === 'approved' ? 'mcp_server.approved' : 'mcp_server.rejected',
        actor: principal,
        target: { type: 'mcp_server', id: key },
        at,
        metadata: {
          serverVersionId: row.id,
          reasons: row.approvalReasons ?? [],
          ...(status === 'approved' ? { movedLatest } : {}),
        },
      });
      return { approval: presentApproval(decided), movedLatest };
    });
  }

  return { list, decide };
}
