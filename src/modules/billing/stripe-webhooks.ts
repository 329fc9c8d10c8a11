import type Stripe from 'stripe';
import { z } from 'zod';
import type { Database, Executor } from '../../db/client.js';
import { ApiError } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { billingWebhookEvents, type SubscriptionStatus } from './billing.tables.js';
import {
  findSubscriptionByCustomer,
  findSubscriptionForUpdate,
  type SubscriptionRow,
  saveSubscription,
  upsertSubscription,
} from './subscriptions.repo.js';

const idOf = z.union([z.string(), z.object({ id: z.string() }).transform((value) => value.id)]);
const seconds = z.number().int().nullish();

const subscriptionObject = z.object({
  id: z.string(),
  customer: idOf,
  status: z.string(),
  cancel_at_period_end: z.boolean().nullish(),
  // Older API versions carry the period on the subscription, newer ones on each item.
  current_period_start: seconds,
  current_period_end: seconds,
  metadata: z.record(z.string(), z.string()).nullish(),
  items: z
    .object({
      data: z.array(
        z.object({
          current_period_start: seconds,
          current_period_end: seconds,
          price: z.object({ id: z.string() }).nullish(),
        }),
      ),
    })
    .nullish(),
});

const checkoutObject = z.object({
  id: z.string(),
  client_reference_id: z.string().nullish(),
  customer: idOf.nullish(),
  subscription: idOf.nullish(),
  payment_status: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

/** Stripe's statuses, folded into the six of docs/billing.md. */
const STATUS: Record<string, SubscriptionStatus> = {
  trialing: 'trialing',
  active: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  canceled: 'canceled',
  incomplete: 'incomplete',
  incomplete_expired: 'canceled',
  paused: 'incomplete',
};

export interface StripeWebhookDeps {
  stripe: Stripe;
  database: Database;
  clock: Clock;
  secret: string;
  toleranceSeconds: number;
  prices: Record<string, string>;
}

export type WebhookOutcome = { eventId: string; type: string; duplicate: boolean };

/**
 * Verifies a delivery (signature and timestamp tolerance, on the raw body) and applies it to the
 * subscription projection. The event id is recorded in the same transaction: a duplicate changes nothing.
 * Events older than the state stored (`created` earlier than `provider_state_at`) are ignored, so
 * out-of-order delivery cannot move a subscription back.
 */
export function createStripeWebhookHandler(deps: StripeWebhookDeps) {
  const planByPrice = new Map(Object.entries(deps.prices).map(([plan, price]) => [price, plan]));

  // Changes a webhook reports are Cadre's own doing on the provider's word: the `system` actor.
  const webhookChange = () => ({
    actor: { kind: 'system' as const },
    at: deps.clock.now(),
    source: 'webhook' as const,
  });

  function verify(rawBody: Buffer, signature: string | undefined): Stripe.Event {
    if (!signature) throw new ApiError('bad_request', 'Missing Stripe-Signature header');
    try {
      return deps.stripe.webhooks.constructEvent(
        rawBody,
        signature,
        deps.secret,
        deps.toleranceSeconds,
        undefined,
        deps.clock.now().getTime(),
      );
    } catch {
      throw new ApiError('bad_request', 'Invalid webhook signature or timestamp outside the tolerance');
    }
  }

  async function applySubscription(tx: Executor, event: Stripe.Event, eventAt: Date) {
    const parsed = subscriptionObject.safeParse(event.data.object);
    if (!parsed.success) return;
    const subscription = parsed.data;
    const organizationId =
      subscription.metadata?.organizationId ??
      (await findSubscriptionByCustomer(tx, 'stripe', subscription.customer))?.organizationId;
    if (!organizationId) return;
    const current = await findSubscriptionForUpdate(tx, organizationId);
    if (isStale(current, eventAt, event.type)) return;
    const item = subscription.items?.data[0];
    const start = item?.current_period_start ?? subscription.current_period_start;
    const end = item?.current_period_end ?? subscription.current_period_end;
    const priceId = item?.price?.id;
    const deleted = event.type === 'customer.subscription.deleted';
    await saveSubscription(
      tx,
      current,
      {
        organizationId,
        provider: 'stripe',
        planKey:
          (priceId ? planByPrice.get(priceId) : undefined) ??
          subscription.metadata?.planKey ??
          current?.planKey ??
          'free',
        status: deleted ? 'canceled' : (STATUS[subscription.status] ?? 'incomplete'),
        currentPeriodStart: start ? new Date(start * 1000) : (current?.currentPeriodStart ?? null),
        currentPeriodEnd: end ? new Date(end * 1000) : (current?.currentPeriodEnd ?? null),
        cancelAtPeriodEnd: deleted ? false : Boolean(subscription.cancel_at_period_end),
        providerCustomerId: subscription.customer,
        providerSubscriptionId: subscription.id,
        providerStateAt: eventAt,
        updatedAt: deps.clock.now(),
      },
      webhookChange(),
    );
  }

  /** Links the organization to its Stripe customer and subscription; the subscription events carry the rest. */
  async function applyCheckout(tx: Executor, event: Stripe.Event, eventAt: Date) {
    const parsed = checkoutObject.safeParse(event.data.object);
    if (!parsed.success) return;
    const session = parsed.data;
    const organizationId = session.client_reference_id ?? session.metadata?.organizationId;
    if (!organizationId || !session.customer) return;
    const current = await findSubscriptionForUpdate(tx, organizationId);
    const sameSubscription = current?.providerSubscriptionId === session.subscription;
    if (sameSubscription && current) {
      await upsertSubscription(tx, { ...current, providerCustomerId: session.customer });
      return;
    }
    if (isStale(current, eventAt, event.type)) return;
    await saveSubscription(
      tx,
      current,
      {
        organizationId,
        provider: 'stripe',
        planKey: session.metadata?.planKey ?? current?.planKey ?? 'free',
        status:
          session.payment_status === 'paid' || session.payment_status === 'no_payment_required'
            ? 'active'
            : 'incomplete',
        currentPeriodStart: null,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        providerCustomerId: session.customer,
        providerSubscriptionId: session.subscription ?? null,
        // Not newer than any subscription event of the same second: those carry the real state.
        providerStateAt: new Date(eventAt.getTime() - 1),
        updatedAt: deps.clock.now(),
      },
      webhookChange(),
    );
  }

  return {
    async handle(rawBody: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
      const event = verify(rawBody, signature);
      const eventAt = new Date(event.created * 1000);
      const duplicate = await deps.database.db.transaction(async (tx) => {
        const recorded = await tx
          .insert(billingWebhookEvents)
          .values({ provider: 'stripe', eventId: event.id, type: event.type, receivedAt: deps.clock.now() })
          .onConflictDoNothing()
          .returning({ id: billingWebhookEvents.eventId });
        if (recorded.length === 0) return true;
        if (event.type.startsWith('customer.subscription.')) await applySubscription(tx, event, eventAt);
        else if (event.type === 'checkout.session.completed') await applyCheckout(tx, event, eventAt);
        return false;
      });
      return { eventId: event.id, type: event.type, duplicate };
    },
  };
}

/** Older than what is stored; at the same second, a `.created` event never overrides a later kind. */
function isStale(current: SubscriptionRow | undefined, eventAt: Date, type: string): boolean {
  const storedAt = current?.providerStateAt;
  if (!storedAt || current.provider !== 'stripe') return false;
  if (eventAt < storedAt) return true;
  return eventAt.getTime() === storedAt.getTime() && type.endsWith('.created');
}
