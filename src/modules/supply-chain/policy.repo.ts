import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { registryExperts } from '../registry/index.js';
import { users } from '../tenancy/index.js';
import { registryApprovals, registryPublishPolicies } from './policy.tables.js';
import { OPEN_POLICY, type PublishPolicy } from './publish-policy.js';

export interface StoredPolicy {
  policy: PublishPolicy;
  updatedAt: Date | null;
  updatedByUserId: string | null;
}

/** The first key of the two-key advisory lock a policy change takes (plan checks use 7501). */
const POLICY_LOCK_CLASS = 7_502;

/**
 * Holds the organization's policy for a change until the transaction ends, whether or not it has a row yet:
 * a row lock (`FOR UPDATE`) holds nothing while there is no row, so two first changes both read the open policy
 * and the second write dropped the first's rule. With this lock they run one after the other and compose.
 */
export async function lockPolicy(executor: Executor, organizationId: string): Promise<void> {
  await executor.execute(
    sql`SELECT pg_advisory_xact_lock(${POLICY_LOCK_CLASS}, hashtext(${organizationId}))`,
  );
}

/** The organization's policy; the open policy when it has none of its own. `lock` holds it for an update. */
export async function readPolicy(
  executor: Executor,
  organizationId: string,
  lock = false,
): Promise<StoredPolicy> {
  const query = executor
    .select()
    .from(registryPublishPolicies)
    .where(eq(registryPublishPolicies.organizationId, organizationId));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) return { policy: OPEN_POLICY, updatedAt: null, updatedByUserId: null };
  return {
    policy: {
      allowedCommands: row.allowedCommands,
      requirePinnedVersions: row.requirePinnedVersions,
      allowedSseHosts: row.allowedSseHosts,
      approvalRequiredForWidening: row.approvalRequiredForWidening,
      skillsFromCatalog: row.skillsFromCatalog,
    },
    updatedAt: row.updatedAt,
    updatedByUserId: row.updatedByUserId,
  };
}

export async function writePolicy(
  executor: Executor,
  organizationId: string,
  policy: PublishPolicy,
  at: Date,
  userId: string | null,
): Promise<void> {
  const values = { ...policy, updatedAt: at, updatedByUserId: userId };
  await executor
    .insert(registryPublishPolicies)
    .values({ organizationId, ...values })
    .onConflictDoUpdate({ target: registryPublishPolicies.organizationId, set: values });
}

export type ApprovalStatus = 'pending' | 'approved' | 'rejected';

const approvalColumns = {
  approval: registryApprovals,
  requestedByName: sql<string | null>`coalesce(${users.name}, ${users.email})`,
};

/** An organization's approvals with a status, oldest first (pending) or newest first (decided); at most 100. */
export function listApprovals(executor: Executor, organizationId: string, status: ApprovalStatus) {
  const a = registryApprovals;
  return executor
    .select(approvalColumns)
    .from(a)
    .leftJoin(users, eq(users.id, a.requestedByUserId))
    .where(and(eq(a.organizationId, organizationId), eq(a.status, status)))
    .orderBy(...(status === 'pending' ? [asc(a.createdAt), asc(a.id)] : [desc(a.createdAt), desc(a.id)]))
    .limit(100);
}

/** One approval of the organization (another organization's reads as absent). */
export async function findApproval(executor: Executor, organizationId: string, id: string, lock = false) {
  const a = registryApprovals;
  const query = executor
    .select()
    .from(a)
    .where(and(eq(a.id, id), eq(a.organizationId, organizationId)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

export async function insertApproval(executor: Executor, row: typeof registryApprovals.$inferInsert) {
  await executor.insert(registryApprovals).values(row);
}

export async function decideApproval(
  executor: Executor,
  id: string,
  status: 'approved' | 'rejected',
  userId: string,
  at: Date,
): Promise<boolean> {
  const rows = await executor
    .update(registryApprovals)
    .set({ status, decidedByUserId: userId, decidedAt: at })
    .where(and(eq(registryApprovals.id, id), eq(registryApprovals.status, 'pending')))
    .returning({ id: registryApprovals.id });
  return rows.length === 1;
}

/** The publish order (`seq`) of a version, and of the name's `latest` holder (if any). */
export async function seqs(executor: Executor, expertId: string, name: string) {
  const e = registryExperts;
  const [own] = await executor.select({ seq: e.seq }).from(e).where(eq(e.id, expertId));
  const [latest] = await executor
    .select({ id: e.id, seq: e.seq })
    .from(e)
    .where(and(eq(e.name, name), eq(e.isLatest, true)));
  return { own: own?.seq, latest };
}

/**
 * The most recently published version of a name that may hold `latest`, if any is left: one awaiting approval,
 * or rejected, may not (docs/registry.md "Publish policies").
 */
export async function mostRecentApproved(tx: Executor, name: string): Promise<string | undefined> {
  const e = registryExperts;
  const [row] = await tx
    .select({ id: e.id })
    .from(e)
    .where(
      and(
        eq(e.name, name),
        sql`NOT EXISTS (SELECT 1 FROM ${registryApprovals} WHERE ${registryApprovals.expertId} = ${e.id}
          AND ${registryApprovals.status} <> 'approved')`,
      ),
    )
    .orderBy(desc(e.seq))
    .limit(1);
  return row?.id;
}
