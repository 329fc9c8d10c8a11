import type { Database, Executor } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import {
  type ApprovalRow,
  applyPolicyChange,
  OPEN_POLICY,
  PRESETS,
  type PublishPolicy,
  type PublishPolicyChange,
  policies,
} from '../supply-chain/index.js';
import type { Approval } from './policy.schemas.js';
import type { RegistryService } from './registry.service.js';

export interface PolicyServiceDeps {
  database: Database;
  clock: Clock;
  registry: Pick<RegistryService, 'decide'>;
  /** Owners and admins of an organization: who may approve (the publisher never approves their own). */
  countApprovers: (organizationId: string) => Promise<number>;
}

const NOBODY_TO_APPROVE =
  'Nobody can approve: the organization has one owner and no admin, so a version that widens access would ' +
  'wait for approval forever; add an admin (cadre members invite --role admin) or turn approval off';

export type PolicyService = ReturnType<typeof createPolicyService>;

const samePolicy = (a: PublishPolicy, b: PublishPolicy) => JSON.stringify(a) === JSON.stringify(b);

/** An approval as the API shows it, with its diff summary (the whole diff is GET /registry/diff). */
function presentApproval(row: ApprovalRow, requestedByName: string | null = null): Approval {
  const to = `${row.name}@${row.version}`;
  return {
    id: row.id,
    key: to,
    name: row.name,
    version: row.version,
    status: row.status,
    previousVersion: row.previousVersion,
    diff: {
      from: row.previousVersion === null ? null : `${row.name}@${row.previousVersion}`,
      to,
      widensAccess: true,
      reasons: row.reasons,
    },
    requestedBy: { userId: row.requestedByUserId, name: requestedByName },
    decidedByUserId: row.decidedByUserId,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * An organization's publish policy (read by every member, changed by owners and admins) and its approvals
 * (docs/registry.md "Publish policies"). The registry service applies the policy at publish and decides
 * approvals (it holds the name locks `latest` moves under).
 */
export function createPolicyService(deps: PolicyServiceDeps) {
  const { db } = deps.database;

  async function read(principal: Principal) {
    requirePermission(principal, 'publish-policy:read');
    return current(principal.organizationId);
  }

  async function current(organizationId: string) {
    const stored = await policies.readPolicy(db, organizationId);
    // An approval needs an owner or admin other than the publisher.
    const stuck =
      stored.policy.approvalRequiredForWidening && (await deps.countApprovers(organizationId)) < 2;
    return {
      policy: stored.policy,
      updatedAt: stored.updatedAt?.toISOString() ?? null,
      updatedByUserId: stored.updatedByUserId,
      presets: PRESETS,
      warnings: stuck ? [NOBODY_TO_APPROVE] : [],
    };
  }

  /** Applies `change`; audited (`publish_policy.updated`, from and to) when it changes anything. */
  async function update(principal: Principal, change: PublishPolicyChange) {
    requirePermission(principal, 'publish-policy:manage');
    await db.transaction(async (tx) => {
      await policies.lockPolicy(tx, principal.organizationId);
      const current = await policies.readPolicy(tx, principal.organizationId, true);
      const next = applyPolicyChange(current.policy, change);
      if (samePolicy(current.policy, next)) return; // nothing changes: nothing to record
      const now = deps.clock.now();
      await policies.writePolicy(tx, principal.organizationId, next, now, principal.userId);
      await recordAuditEvent(tx, {
        organizationId: principal.organizationId,
        action: 'publish_policy.updated',
        actor: principal,
        target: { type: 'organization', id: principal.organizationId },
        at: now,
        metadata: {
          from: { ...current.policy },
          to: { ...next },
          ...(change.preset ? { preset: change.preset } : {}),
        },
      });
    });
    // Answered to whoever may change it, whether or not their key may also read it.
    return current(principal.organizationId);
  }

  async function listApprovals(principal: Principal, status: policies.ApprovalStatus) {
    requirePermission(principal, 'publish-policy:read');
    const rows = await policies.listApprovals(db, principal.organizationId, status);
    return rows.map((row) => presentApproval(row.approval, row.requestedByName));
  }

  async function decide(principal: Principal, approvalId: string, decision: 'approve' | 'reject') {
    const decided = await deps.registry.decide(principal, approvalId, decision);
    return { approval: presentApproval(decided), movedLatest: decided.movedLatest };
  }

  return { read, update, listApprovals, decide };
}

/**
 * Gives a new organization the operator's default policy (CADRE_PUBLISH_POLICY_DEFAULT), in the transaction
 * that creates it. Without a default, or with the open one, nothing is written: no row reads as the open policy.
 */
export async function seedPublishPolicy(
  tx: Executor,
  organizationId: string,
  policy: PublishPolicy | undefined,
  at: Date,
): Promise<void> {
  if (!policy || samePolicy(policy, OPEN_POLICY)) return;
  await policies.writePolicy(tx, organizationId, policy, at, null);
}
