import { and, eq, gt } from 'drizzle-orm';
import type { Database, Executor } from '../../../db/client.js';
import { notFound } from '../../../http/errors.js';
import type { Clock } from '../../../lib/clock.js';
import { randomBase62 } from '../../../lib/secrets.js';
import { billingLocalSessions } from '../billing.tables.js';
import { addMonths } from '../period.js';
import type { PlanCatalogue } from '../plans.js';
import { findSubscription, findSubscriptionForUpdate, saveSubscription } from '../subscriptions.repo.js';
import type { BillingProvider, CheckoutSession, PortalSession } from './provider.js';

/** Where the local provider's checkout and portal pages live (../local-pages.routes.ts). */
export const LOCAL_PAGES_PREFIX = '/billing/local';

export const LOCAL = 'local';

const CHECKOUT_TTL_MS = 24 * 3_600_000;
const PORTAL_TTL_MS = 3_600_000;

interface LocalProviderDeps {
  database: Database;
  clock: Clock;
  plans: PlanCatalogue;
}

type LocalSession = typeof billingLocalSessions.$inferSelect;

/**
 * The built-in provider: checkout and portal are pages served by Cadre itself, so the whole flow works
 * offline. Confirming a checkout activates the plan for one month; the portal sets or clears
 * cancel-at-period-end. Session ids are long random strings: whoever holds the URL may use it, exactly as
 * with a hosted checkout page.
 */
export function createLocalProvider({ database, clock, plans }: LocalProviderDeps) {
  const { db } = database;

  async function insertOrFind(
    values: Omit<typeof billingLocalSessions.$inferInsert, 'id' | 'status' | 'createdAt' | 'expiresAt'>,
    prefix: string,
    ttlMs: number,
  ): Promise<LocalSession> {
    const now = clock.now();
    const [created] = await db
      .insert(billingLocalSessions)
      .values({
        ...values,
        id: `${prefix}_${randomBase62(32)}`,
        status: 'open',
        createdAt: now,
        expiresAt: new Date(now.getTime() + ttlMs),
      })
      .onConflictDoNothing({ target: billingLocalSessions.providerIdempotencyKey })
      .returning();
    if (created) return created;
    // The same provider key again: the session made the first time (what Stripe does with its keys).
    const [existing] = await db
      .select()
      .from(billingLocalSessions)
      .where(eq(billingLocalSessions.providerIdempotencyKey, values.providerIdempotencyKey));
    if (!existing) throw new Error('local billing session vanished');
    return existing;
  }

  async function session(
    id: string,
    kind: LocalSession['kind'],
    executor: Executor = db,
  ): Promise<LocalSession> {
    const [row] = await executor.select().from(billingLocalSessions).where(eq(billingLocalSessions.id, id));
    if (!row || row.kind !== kind)
      throw notFound(kind === 'checkout' ? 'Checkout session' : 'Portal session');
    return row;
  }

  const isOpen = (row: LocalSession) => row.status === 'open' && row.expiresAt > clock.now();

  const provider: BillingProvider = {
    name: LOCAL,
    portalNeedsCustomer: false,
    sellsPlan: (planKey) => plans.get(planKey) !== undefined,

    async createCheckout(request): Promise<CheckoutSession> {
      const row = await insertOrFind(
        {
          kind: 'checkout',
          organizationId: request.organizationId,
          userId: request.userId,
          providerIdempotencyKey: request.idempotencyKey,
          planKey: request.plan.key,
          successUrl: request.successUrl,
          cancelUrl: request.cancelUrl,
        },
        'lcs',
        CHECKOUT_TTL_MS,
      );
      return {
        sessionId: row.id,
        url: `${request.baseUrl}${LOCAL_PAGES_PREFIX}/checkout/${row.id}`,
        expiresAt: row.expiresAt,
      };
    },

    async createPortal(request): Promise<PortalSession> {
      const row = await insertOrFind(
        {
          kind: 'portal',
          organizationId: request.organizationId,
          userId: request.userId,
          providerIdempotencyKey: request.idempotencyKey,
          returnUrl: request.returnUrl,
        },
        'lps',
        PORTAL_TTL_MS,
      );
      return { sessionId: row.id, url: `${request.baseUrl}${LOCAL_PAGES_PREFIX}/portal/${row.id}` };
    },
  };

  return {
    provider,

    async checkoutPage(id: string) {
      const row = await session(id, 'checkout');
      const plan = plans.get(row.planKey ?? '');
      if (!plan) throw notFound('Plan');
      return { session: row, plan, open: isOpen(row) };
    },

    /**
     * Confirms a checkout: completes the session and activates its plan for one month, in one
     * transaction. Confirming a completed session again changes nothing. Answers where to send the browser,
     * or null when the session expired unpaid.
     */
    async confirmCheckout(id: string): Promise<string | null> {
      return db.transaction(async (tx) => {
        const now = clock.now();
        const [completed] = await tx
          .update(billingLocalSessions)
          .set({ status: 'completed', completedAt: now })
          .where(
            and(
              eq(billingLocalSessions.id, id),
              eq(billingLocalSessions.kind, 'checkout'),
              eq(billingLocalSessions.status, 'open'),
              gt(billingLocalSessions.expiresAt, now),
            ),
          )
          .returning();
        if (!completed) {
          const row = await session(id, 'checkout', tx);
          return row.status === 'completed' ? row.successUrl : null;
        }
        const previous = await findSubscriptionForUpdate(tx, completed.organizationId);
        await saveSubscription(
          tx,
          previous,
          {
            organizationId: completed.organizationId,
            provider: LOCAL,
            planKey: completed.planKey ?? 'free',
            status: 'active',
            currentPeriodStart: now,
            currentPeriodEnd: addMonths(now, 1),
            cancelAtPeriodEnd: false,
            providerCustomerId: null,
            providerSubscriptionId: completed.id,
            providerStateAt: now,
            updatedAt: now,
          },
          { actor: { kind: 'system', userId: completed.userId }, at: now, source: 'checkout' },
        );
        return completed.successUrl;
      });
    },

    async portalPage(id: string) {
      const row = await session(id, 'portal');
      const subscription = await findSubscription(db, row.organizationId);
      return {
        session: row,
        subscription,
        plan: plans.get(subscription?.planKey ?? 'free'),
        open: isOpen(row),
      };
    },

    /** Sets or clears cancel-at-period-end from an open portal session; answers the return URL. */
    async setCancelAtPeriodEnd(id: string, cancel: boolean): Promise<string | null> {
      const row = await session(id, 'portal');
      if (!isOpen(row)) return null;
      const now = clock.now();
      await db.transaction(async (tx) => {
        const subscription = await findSubscriptionForUpdate(tx, row.organizationId);
        if (subscription?.provider !== LOCAL) return;
        await saveSubscription(
          tx,
          subscription,
          { ...subscription, cancelAtPeriodEnd: cancel, providerStateAt: now, updatedAt: now },
          { actor: { kind: 'system', userId: row.userId }, at: now, source: 'portal' },
        );
      });
      return row.returnUrl;
    },
  };
}

export type LocalBilling = ReturnType<typeof createLocalProvider>;
