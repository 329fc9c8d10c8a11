import { useMutation } from '@tanstack/react-query';
import { useRef } from 'react';
import { useSearchParams } from 'react-router';
import { api, currentCsrfToken, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { formatDate, formatPeriod } from '../format.js';
import { useCan, useSession } from '../session.js';
import { USAGE_WORDS } from '../words.js';
import { useBilling, usePlans } from './billing-queries.js';

type Usage = components['schemas']['Usage'];

const money = (amount: number, currency: string) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(
    amount / 100,
  );

const STATUS_WORDS: Record<string, string> = {
  none: 'No subscription (free plan)',
  trialing: 'Trial',
  active: 'Active',
  past_due: 'Payment past due',
  canceled: 'Canceled',
  incomplete: 'Payment incomplete',
};

/** A plan's limit in words: null is no limit. */
const howMany = (limit: number | null) => (limit === null ? 'Unlimited' : limit.toLocaleString());

/** Usage against the plan's limits as bars, with a warning at 80% and at 100%; a counter without a limit as its count. */
export function UsageBars({ usage, canUpgrade }: { usage: Usage; canUpgrade: boolean }) {
  return (
    <div>
      {usage.counters.map((counter) => {
        const id = `usage-${counter.key}`;
        // No limit (an operator's plan catalogue may set none): the count alone, no bar to fill.
        if (counter.limit === null)
          return (
            <div key={counter.key} className="meter-row">
              <p className="row space-between">
                <span>{USAGE_WORDS[counter.key] ?? counter.key}</span>
                <span className="muted small">{counter.used.toLocaleString()} (no limit)</span>
              </p>
            </div>
          );
        const share = counter.limit > 0 ? counter.used / counter.limit : 0;
        return (
          <div key={counter.key} className="meter-row">
            <label htmlFor={id} className="row space-between">
              <span>{USAGE_WORDS[counter.key] ?? counter.key}</span>
              <span className="muted small">
                {counter.used.toLocaleString()} of {counter.limit.toLocaleString()}
              </span>
            </label>
            <meter
              id={id}
              min={0}
              max={counter.limit}
              value={Math.min(counter.used, counter.limit)}
              low={counter.limit * 0.8}
              high={counter.limit * 0.99}
              optimum={0}
            />
            {share >= 1 ? (
              <p className="small notice-inline-error">
                {canUpgrade
                  ? 'Limit reached: new ones are refused until you upgrade or remove some.'
                  : 'Limit reached: new ones are refused until an owner upgrades the plan or some are removed.'}
              </p>
            ) : share >= 0.8 ? (
              <p className="small notice-inline-warning">
                {Math.floor(share * 100)}% used: close to the limit.
              </p>
            ) : null}
          </div>
        );
      })}
    </div>
  );
}

export function Billing() {
  const session = useSession();
  const org = session.data?.organization.slug ?? '';
  const can = useCan();
  const [params] = useSearchParams();
  const path = { organizationIdOrSlug: org };
  const plans = usePlans();
  const { subscription, usage } = useBilling(org);
  // One key per deliberate click: a retry of the same click replays its answer, a new click is a new request.
  const clickKey = useRef('');
  // A double click's second click lands before React has re-rendered the button disabled: ignore it here.
  const leaving = useRef(false);
  const once = (start: () => void) => () => {
    if (leaving.current) return;
    leaving.current = true;
    clickKey.current = crypto.randomUUID();
    start();
  };
  const checkout = useMutation({
    mutationFn: async (planKey: string) => {
      const origin = window.location.origin;
      return unwrap(
        await api.POST('/api/v1/organizations/{organizationIdOrSlug}/billing/checkout', {
          params: { path, header: { 'idempotency-key': clickKey.current } },
          body: {
            planKey,
            successUrl: `${origin}/billing?checkout=success`,
            cancelUrl: `${origin}/billing?checkout=canceled`,
            csrfToken: currentCsrfToken(),
          },
        }),
      ).data;
    },
    onSuccess: (answer) => window.location.assign(answer.url),
    onError: () => {
      leaving.current = false;
    },
  });
  const portal = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/organizations/{organizationIdOrSlug}/billing/portal', {
          params: { path, header: { 'idempotency-key': clickKey.current } },
          body: { returnUrl: `${window.location.origin}/billing`, csrfToken: currentCsrfToken() },
        }),
      ).data,
    onSuccess: (answer) => window.location.assign(answer.url),
    onError: () => {
      leaving.current = false;
    },
  });
  const busy = checkout.isPending || portal.isPending || checkout.isSuccess || portal.isSuccess;
  const sub = subscription.data;
  const outcome = params.get('checkout');
  return (
    <section className="page">
      <PageHeader title="Billing">Your plan, what it allows, and how much of it you use.</PageHeader>
      {outcome === 'success' && (
        <p className="notice" role="status">
          Payment complete. Your plan is updated below (it may take a few seconds with a payment provider).
        </p>
      )}
      {outcome === 'canceled' && (
        <p className="notice" role="status">
          Checkout canceled: nothing was charged and your plan is unchanged.
        </p>
      )}
      {sub?.testMode && (
        <p className="notice notice-warning">
          Test mode: the built-in local provider activates plans without payment. Never use it in production.
        </p>
      )}
      <ErrorNotice
        error={subscription.error ?? usage.error ?? plans.error}
        retry={() => Promise.all([subscription.refetch(), usage.refetch(), plans.refetch()])}
      />
      <ErrorNotice error={checkout.error ?? portal.error} />

      <div className="expert-grid">
        <div className="expert-main">
          <h2>Plans</h2>
          <div className="plans">
            {plans.data?.map((plan) => {
              const current = sub?.planKey === plan.key;
              return (
                <article
                  key={plan.key}
                  className="card plan"
                  aria-current={current ? 'true' : undefined}
                  aria-labelledby={`plan-${plan.key}`}
                >
                  <h3 id={`plan-${plan.key}`}>
                    {plan.name} {current && <span className="badge badge-latest">Current</span>}
                  </h3>
                  <p className="price">
                    {plan.amount === 0 ? 'Free' : money(plan.amount, plan.currency)}
                    {plan.amount > 0 && <span className="muted small"> / {plan.interval}</span>}
                  </p>
                  <p className="small">{plan.description}</p>
                  <ul className="small">
                    {plan.features.map((feature) => (
                      <li key={feature}>{feature}</li>
                    ))}
                    <li>{howMany(plan.limits.apiKeys)} API keys</li>
                    <li>{howMany(plan.limits.expertVersions)} Expert versions</li>
                    <li>{howMany(plan.limits.connections)} connections</li>
                    <li>{howMany(plan.limits.apiRequests)} API requests a month</li>
                  </ul>
                  {!current && plan.amount > 0 && can('billing:manage') && (
                    <button
                      type="button"
                      className="button button-primary"
                      disabled={busy}
                      onClick={once(() => checkout.mutate(plan.key))}
                    >
                      {checkout.isPending && checkout.variables === plan.key
                        ? 'Opening checkout…'
                        : `Upgrade to ${plan.name}`}
                    </button>
                  )}
                </article>
              );
            })}
          </div>
        </div>
        <aside className="expert-side">
          <section className="card" aria-labelledby="subscription">
            <h2 id="subscription">Subscription</h2>
            {sub ? (
              <dl className="facts">
                <dt>Plan</dt>
                <dd>{plans.data?.find((plan) => plan.key === sub.planKey)?.name ?? sub.planKey}</dd>
                <dt>Status</dt>
                <dd>{STATUS_WORDS[sub.status] ?? sub.status}</dd>
                {sub.currentPeriodEnd && (
                  <>
                    <dt>{sub.cancelAtPeriodEnd ? 'Ends' : 'Renews'}</dt>
                    <dd>{formatDate(sub.currentPeriodEnd)}</dd>
                  </>
                )}
                <dt>Provider</dt>
                <dd>{sub.provider === 'local' ? 'Built-in (test mode)' : 'Stripe'}</dd>
              </dl>
            ) : (
              <PageSkeleton lines={3} />
            )}
            {sub && sub.status !== 'none' && can('billing:manage') && (
              <button type="button" className="button" disabled={busy} onClick={once(() => portal.mutate())}>
                {portal.isPending ? 'Opening…' : 'Manage billing'}
              </button>
            )}
          </section>
          <section className="card" aria-labelledby="usage">
            <h2 id="usage">Usage</h2>
            {usage.data ? (
              <>
                <p className="muted small">{formatPeriod(usage.data.periodStart, usage.data.periodEnd)}</p>
                <UsageBars usage={usage.data} canUpgrade={can('billing:manage')} />
              </>
            ) : (
              <PageSkeleton lines={3} />
            )}
          </section>
        </aside>
      </div>
    </section>
  );
}
