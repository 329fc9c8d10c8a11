import type { Tx } from '../../db/client.js';
import { ApiError, anotherOrganizations, forbidden } from '../../http/errors.js';
import { recordAuditEvent } from '../audit/index.js';
import { can, type Principal, requirePermission } from '../auth/index.js';
import {
  type ExpertRecord,
  type ExpertUpdate,
  formatExpertKey,
  LATEST_TAG,
  type ParsedExpertKey,
  repo,
} from '../registry/index.js';
import { policies } from '../supply-chain/index.js';
import { presentExpert } from './registry.presenters.js';
import type { RegistryExpert } from './registry.schemas.js';
import { badRequest, expertNotFound, type RegistryContext } from './registry-context.js';

/** An operator's takedown of one version (docs/registry.md "Takedowns"). */
export interface TakedownRecord {
  key: string;
  expertId: string;
  organizationId: string;
  reason: string;
  takenDownAt: Date;
}

const ALLOWED_STATUS: Record<ExpertRecord['status'], ReadonlyArray<ExpertRecord['status']>> = {
  available: ['deprecated', 'disabled'],
  deprecated: ['disabled', 'available'],
  disabled: [],
};

/** What a face asks of an update besides the change itself (the Perstack-compatible face, docs/perstack.md). */
export interface UpdatePolicy {
  /** Refuses a version this face cannot present, before anything changes. */
  assertServable?: (expert: ExpertRecord) => void;
  /** The client named `latest` among the tags: a no-op on the version holding it, refused on any other. */
  latestNamed?: boolean;
}

/** Changes to published versions: approvals decided, updates, deletions and the operator's takedowns. */
export function createRecordChanges(ctx: RegistryContext) {
  const { deps, db, write, audit, missing, mustFind } = ctx;

  function assertSameOrganization(
    principal: Principal,
    expert: ExpertRecord,
    permission: 'experts:write' | 'experts:delete',
  ) {
    if (!can(principal, permission, { kind: 'organization', organizationId: expert.organizationId })) {
      throw anotherOrganizations(`Expert ${expert.name}@${expert.version} belongs to another organization`);
    }
  }

  /**
   * A second owner or admin approves or rejects a version awaiting approval (docs/registry.md "Publish
   * policies"). The name is locked first, so two decisions on one approval are serialized: the first wins, the
   * second finds it decided (409), and only the first is audited. Approving moves `latest` to the version when
   * it is still the most recently published version that may hold it.
   */
  async function decide(principal: Principal, approvalId: string, decision: 'approve' | 'reject') {
    requirePermission(principal, 'experts:approve');
    const found = await policies.findApproval(db, principal.organizationId, approvalId);
    if (!found) throw new ApiError('not_found', `Approval ${approvalId} not found`);
    return write(found.name, async (tx) => {
      await repo.lockName(tx, found.name);
      const approval = await policies.findApproval(tx, principal.organizationId, approvalId, true);
      if (!approval) throw new ApiError('not_found', `Approval ${approvalId} not found`);
      const key = `${approval.name}@${approval.version}`;
      if (approval.requestedByUserId === principal.userId) {
        throw forbidden(`You published ${key}: another owner or admin must decide on it`);
      }
      if (approval.status !== 'pending') {
        throw new ApiError(
          'conflict',
          `${key} was already ${approval.status} (${approval.decidedAt?.toISOString() ?? 'earlier'})`,
        );
      }
      const now = deps.clock.now();
      const status: 'approved' | 'rejected' = decision === 'approve' ? 'approved' : 'rejected';
      if (!(await policies.decideApproval(tx, approval.id, status, principal.userId, now))) {
        throw new ApiError('conflict', `${key} was already decided`);
      }
      let movedLatest = false;
      if (status === 'approved') {
        const { own, latest } = await policies.seqs(tx, approval.expertId, approval.name);
        if (own !== undefined && (!latest || latest.seq < own)) {
          if (latest) await repo.dropLatest(tx, approval.name, now);
          else await repo.countLatest(tx, approval.organizationId, 1);
          await repo.setLatest(tx, approval.expertId, now);
          movedLatest = true;
        }
      }
      await recordAuditEvent(tx, {
        organizationId: approval.organizationId,
        action: status === 'approved' ? 'expert.approved' : 'expert.rejected',
        actor: principal,
        target: { type: 'expert', id: key },
        at: now,
        metadata: {
          expertId: approval.expertId,
          approvalId: approval.id,
          ...(status === 'approved' ? { movedLatest } : {}),
        },
      });
      return { ...approval, status, decidedByUserId: principal.userId, decidedAt: now, movedLatest };
    });
  }

  async function update(
    principal: Principal,
    key: ParsedExpertKey,
    change: ExpertUpdate,
    policy: UpdatePolicy = {},
  ): Promise<RegistryExpert> {
    requirePermission(principal, 'experts:write');
    const id = await write(key.name, async (tx) => {
      if (!(await repo.lockName(tx, key.name))) throw expertNotFound(formatExpertKey(key));
      const now = deps.clock.now();
      const expert = await repo.findByKey(tx, key);
      if (!expert) throw await missing(tx, key);
      assertSameOrganization(principal, expert, 'experts:write');
      policy.assertServable?.(expert);
      if (policy.latestNamed && !expert.isLatest) {
        throw badRequest(
          `"${LATEST_TAG}" cannot be given to ${expert.name}@${expert.version}: it always names the most ` +
            'recently published live version, and moves only when a version is published or deleted',
        );
      }
      if (change.status !== undefined) {
        if (change.status === expert.status) throw badRequest(`Expert status is already ${expert.status}`);
        if (!ALLOWED_STATUS[expert.status].includes(change.status)) {
          throw badRequest(
            expert.status === 'disabled'
              ? 'A disabled Expert cannot change status'
              : `Status cannot change from ${expert.status} to ${change.status}`,
          );
        }
        await repo.setStatus(tx, expert.id, change.status, now);
      }
      if (change.tags !== undefined) {
        // A tag that moves adds no delegation edge (a floating delegate already reaches every version of the
        // name), so no graph is walked here.
        await repo.replaceTags(tx, expert.name, expert.id, change.tags, now);
      }
      await audit(tx, principal, 'expert.updated', expert, now, {
        ...(change.status !== undefined ? { status: { from: expert.status, to: change.status } } : {}),
        ...(change.tags !== undefined ? { tags: { from: expert.tags, to: change.tags } } : {}),
      });
      return expert.id;
    });
    return presentExpert(await mustFind(id));
  }

  async function remove(principal: Principal, key: ParsedExpertKey): Promise<void> {
    // Owners only: experts:delete is in no other role (ROLE_PERMISSIONS).
    requirePermission(principal, 'experts:delete');
    await write(key.name, async (tx) => {
      if (!(await repo.lockName(tx, key.name))) throw expertNotFound(formatExpertKey(key));
      const now = deps.clock.now();
      const expert = await repo.findByKey(tx, key);
      if (!expert) throw await missing(tx, key);
      assertSameOrganization(principal, expert, 'experts:delete');
      const exact = `${expert.name}@${expert.version}`;
      const names = [exact, ...expert.tags.map((tag) => `${expert.name}@${tag}`)];
      const versions = await repo.versionsOf(tx, expert.name);
      if (versions.length === 1) names.push(expert.name, `${expert.name}@${LATEST_TAG}`);
      const delegators = await repo.delegatingExperts(tx, names, expert.id);
      if (delegators.length > 0) {
        const list = delegators.map((d) => `${d.name}@${d.version}`).join(', ');
        throw badRequest(
          `${exact} cannot be deleted: other Experts delegate to it (${list}). To withdraw it, disable it ` +
            `instead: POST /registry/experts/${exact} with {"status":"disabled"}`,
        );
      }
      await repo.deleteExpert(tx, expert.id);
      await moveLatestAway(tx, expert, now);
      await audit(tx, principal, 'expert.deleted', expert, now);
    });
  }

  /**
   * After `expert` left the live versions: when it held `latest`, the most recent live version takes it (or the
   * organization lists one Expert fewer). Moving `latest` adds no delegation edge: nothing to check.
   */
  async function moveLatestAway(tx: Tx, expert: ExpertRecord, now: Date) {
    if (!expert.isLatest) return;
    const next = await policies.mostRecentApproved(tx, expert.name);
    if (!next) {
      await repo.countLatest(tx, expert.organizationId, -1);
      return;
    }
    await repo.setLatest(tx, next, now);
  }

  /**
   * An operator takes an exact version down (docs/registry.md "Takedowns"): it leaves every read as a delete
   * would, even when other Experts delegate to it; those show it in `unavailableDelegates`. Audited in the
   * owning organization's trail. Idempotent: a second takedown answers the first.
   */
  async function takedown(
    key: ParsedExpertKey & { version: string },
    reason: string,
  ): Promise<TakedownRecord> {
    const exact = formatExpertKey(key);
    return write(key.name, async (tx, touch) => {
      const locked = await repo.lockName(tx, key.name);
      const earlier = locked ? await repo.findTakedown(tx, key.name, key.version) : undefined;
      if (earlier) {
        const { expertId, organizationId, reason: firstReason, takenDownAt } = earlier;
        return { key: exact, expertId, organizationId, reason: firstReason, takenDownAt };
      }
      const expert = locked ? await repo.findByKey(tx, key) : undefined;
      if (!expert) throw expertNotFound(exact);
      const now = deps.clock.now();
      const record: TakedownRecord = {
        key: exact,
        expertId: expert.id,
        organizationId: expert.organizationId,
        reason,
        takenDownAt: now,
      };
      await repo.insertTakedown(tx, {
        name: key.name,
        version: key.version,
        expertId: expert.id,
        organizationId: expert.organizationId,
        reason,
        takenDownAt: now,
      });
      await repo.deleteExpert(tx, expert.id);
      await moveLatestAway(tx, expert, now);
      for (const name of await repo.markDelegateUnavailable(tx, exact, reason)) touch(name);
      await recordAuditEvent(tx, {
        organizationId: expert.organizationId,
        action: 'expert.taken_down',
        actor: { kind: 'admin' },
        target: { type: 'expert', id: exact },
        at: now,
      });
      return record;
    });
  }

  return { decide, update, remove, takedown };
}
