import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { billingSubscriptions, type ProviderName } from './billing.tables.js';

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

export async function findSubscriptionByCustomer(
  executor: Executor,
  provider: ProviderName,
  customerId: string,
) {
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
