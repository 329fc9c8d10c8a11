import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { ApiError } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { organizationLimitOverrides, type SubscriptionStatus } from './billing.tables.js';
import { calendarMonth } from './period.js';
import { COUNTER_KEYS, type CounterKey, type Plan, type PlanCatalogue } from './plans.js';
import type { BillingProviders } from './providers/index.js';
import { findSubscription, type SubscriptionRow } from './subscriptions.repo.js';
import type { UsagePeriod, UsageSources } from './usage.js';

/** Statuses in which the organization has its plan (its limits apply, a new checkout is refused). */
export const ENTITLED: ReadonlySet<SubscriptionStatus> = new Set(['active', 'trialing', 'past_due']);

/**
 * The stored projection as seen now: a subscription of a provider that does not renew (`endsAtPeriodEnd`,
 * the local one) has ended with its period.
 */
export function effectiveSubscription(
  row: SubscriptionRow | undefined,
  now: Date,
  providers: Pick<BillingProviders, 'find'>,
): SubscriptionRow | undefined {
  if (!row) return undefined;
  if (
    providers.find(row.provider)?.endsAtPeriodEnd &&
    ENTITLED.has(row.status) &&
    row.currentPeriodEnd &&
    row.currentPeriodEnd <= now
  ) {
    return { ...row, status: 'canceled', cancelAtPeriodEnd: false };
  }
  return row;
}

export interface Entitlement {
  plan: Plan;
  period: UsagePeriod;
  /** The plan's limits with the operator's overrides applied; null: no limit. */
  limits: Record<CounterKey, number | null>;
  /** Which counters an operator set for this organization. */
  overridden: CounterKey[];
}

export type PlanLimits = ReturnType<typeof createPlanLimits>;
/** What a write that adds to a counter needs: the check, made inside its transaction. */
export type PlanCheck = Pick<PlanLimits, 'assertWithin'>;

/**
 * What an organization may hold (docs/billing.md, "Plan limits"): its plan while entitled (else free), the
 * period its counters run in, and an operator's per-organization overrides; and the check every write that
 * adds to a counter makes in its own transaction.
 */
export function createPlanLimits(deps: {
  plans: PlanCatalogue;
  clock: Clock;
  usage: UsageSources;
  providers: Pick<BillingProviders, 'find'>;
}) {
  async function entitlement(executor: Executor, organizationId: string): Promise<Entitlement> {
    const now = deps.clock.now();
    const row = effectiveSubscription(await findSubscription(executor, organizationId), now, deps.providers);
    const live = row && ENTITLED.has(row.status) ? row : undefined;
    // The subscription's own period while now is inside it; else the calendar month.
    const start = live?.currentPeriodStart;
    const end = live?.currentPeriodEnd;
    const period = start && end && start <= now && now < end ? { start, end } : calendarMonth(now);
    const plan = (live && deps.plans.get(live.planKey)) ?? deps.plans.free();
    const overrides = await executor
      .select()
      .from(organizationLimitOverrides)
      .where(eq(organizationLimitOverrides.organizationId, organizationId));
    const limits = { ...plan.limits };
    for (const override of overrides) limits[override.counter] = override.value;
    return { plan, period, limits, overridden: overrides.map((override) => override.counter) };
  }

  return {
    entitlement,

    /**
     * Refuses a write that would take `counter` past the organization's limit: 403 `plan_limit_exceeded`.
     * Call it inside the write's transaction, before the write: an advisory lock per organization and
     * counter makes concurrent writes count one after the other (20 parallel creates at limit − 1: one
     * succeeds).
     */
    async assertWithin(tx: Executor, organizationId: string, counter: Exclude<CounterKey, 'apiRequests'>) {
      await tx.execute(
        sql`SELECT pg_advisory_xact_lock(${PLAN_LOCK_CLASS}, hashtext(${`${organizationId}:${counter}`}))`,
      );
      const current = await entitlement(tx, organizationId);
      const allowed = current.limits[counter];
      if (allowed === null) return;
      const used = await deps.usage[counter](organizationId, current.period, tx);
      if (used < allowed) return;
      const limit = describeLimit(current, counter);
      throw new ApiError(
        'plan_limit_exceeded',
        `${limit.sentence}; this organization has ${used}. ${REMEDY[counter]}`,
        [{ path: counter, message: limit.detail }],
      );
    },

    /** Sets (a number) or clears (null) an operator's override per counter. */
    async setOverrides(
      executor: Executor,
      organizationId: string,
      values: Partial<Record<CounterKey, number | null>>,
    ) {
      for (const counter of COUNTER_KEYS) {
        const value = values[counter];
        if (value === undefined) continue;
        const where = and(
          eq(organizationLimitOverrides.organizationId, organizationId),
          eq(organizationLimitOverrides.counter, counter),
        );
        if (value === null) await executor.delete(organizationLimitOverrides).where(where);
        else
          await executor
            .insert(organizationLimitOverrides)
            .values({ organizationId, counter, value, updatedAt: deps.clock.now() })
            .onConflictDoUpdate({
              target: [organizationLimitOverrides.organizationId, organizationLimitOverrides.counter],
              set: { value, updatedAt: deps.clock.now() },
            });
      }
    },
  };
}

/** The first key of the two-key advisory locks plan checks take (migrations use the one-key form). */
const PLAN_LOCK_CLASS = 7_501;

/**
 * A limit in words, for refusals: the plan's, or an operator's override of it (then both, so the message
 * never claims a plan allows what only this organization was given).
 */
export function describeLimit(
  { plan, limits, overridden }: Pick<Entitlement, 'plan' | 'limits' | 'overridden'>,
  counter: CounterKey,
): { sentence: string; detail: string } {
  const limit = limits[counter];
  const words = `${limit ?? 'unlimited'} ${COUNTER_WORDS[counter]}`;
  if (!overridden.includes(counter)) {
    return { sentence: `The ${plan.name} plan allows ${words}`, detail: `limit ${limit} (plan ${plan.key})` };
  }
  return {
    sentence: `This organization's limit is ${words} (set by an operator; the ${plan.name} plan allows ${plan.limits[counter] ?? 'any number'})`,
    detail: `limit ${limit} (plan ${plan.key}, set by an operator)`,
  };
}

const COUNTER_WORDS: Record<CounterKey, string> = {
  apiRequests: 'API requests per period',
  expertVersions: 'Expert versions published per period',
  apiKeys: 'active API keys',
  connections: 'connections',
};

const REMEDY: Record<CounterKey, string> = {
  apiRequests: 'Upgrade the plan or wait for the next period.',
  expertVersions: 'Upgrade the plan or wait for the next period.',
  apiKeys: 'Upgrade the plan or revoke a key.',
  connections: 'Upgrade the plan or disconnect an environment.',
};
