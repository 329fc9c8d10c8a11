import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { recordAuditEvent } from '../audit/index.js';
import type { Actor } from '../auth/index.js';
import { billingSubscriptions } from './billing.tables.js';

export type SubscriptionRow = typeof billingSubscriptions.$inferSelect;
export type SubscriptionValues = typeof billingSubscriptions.$inferInsert;

export async function findSubscription(executor: Executor, organizationId: string) {
  const [row] = await executor
    .select()
    .from(billingSubscriptions)
    .where(eq(billingSubscriptions.organizationId, organizationId));
  return row;
}

/** Locks the organization's row (if any) for the rest of the transaction. */
export async function findSubscriptionForUpdate(executor: Executor, organizationId: string) {
  const [row] = await executor
    .select()
    .from(billingSubscriptions)
    .where(eq(billingSubscriptions.organizationId, organizationId))
    .for('update');
  return row;
}

export async function findSubscriptionByCustomer(executor: Executor, provider: string, customerId: string) {
  const [row] = await executor
    .select()
    .from(billingSubscriptions)
    .where(
      and(
        eq(billingSubscriptions.provider, provider),
        eq(billingSubscriptions.providerCustomerId, customerId),
      ),
    )
    .limit(1);
  return row;
}

export async function upsertSubscription(executor: Executor, values: SubscriptionValues) {
  const { organizationId, ...rest } = values;
  await executor
    .insert(billingSubscriptions)
    .values(values)
    .onConflictDoUpdate({ target: billingSubscriptions.organizationId, set: { ...rest } });
  return organizationId;
}

/** What a subscription's audit event compares: the plan, its status and a scheduled cancellation. */
const summary = (row: Pick<SubscriptionValues, 'provider' | 'planKey' | 'status' | 'cancelAtPeriodEnd'>) => ({
  provider: row.provider,
  planKey: row.planKey,
  status: row.status,
  cancelAtPeriodEnd: row.cancelAtPeriodEnd ?? false,
});

/**
 * Writes the organization's subscription and, when its plan, status or scheduled cancellation changed,
 * records `subscription.created`, `subscription.canceled` or `subscription.updated` in the same transaction
 * (docs/organization-api.md, "Audit events"). `previous` is the row the caller read (locked) beforehand.
 */
export async function saveSubscription(
  executor: Executor,
  previous: SubscriptionRow | undefined,
  values: SubscriptionValues,
  change: { actor: Actor; at: Date; source: 'checkout' | 'portal' | 'webhook' },
) {
  await upsertSubscription(executor, values);
  const from = previous ? summary(previous) : null;
  const to = summary(values);
  if (from && JSON.stringify(from) === JSON.stringify(to)) return;
  await recordAuditEvent(executor, {
    organizationId: values.organizationId,
    action: !from
      ? 'subscription.created'
      : to.status === 'canceled' && from.status !== 'canceled'
        ? 'subscription.canceled'
        : 'subscription.updated',
    actor: change.actor,
    target: { type: 'subscription', id: values.organizationId },
    at: change.at,
    metadata: { source: change.source, from, to },
  });
}
