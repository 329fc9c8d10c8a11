import type { Database } from '../../db/client.js';
import { ApiError, notFound, serviceUnavailable, validationFailed } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { Permission } from '../auth/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import { canonicalJson, type Idempotency, type StoredAnswer } from '../idempotency/index.js';
import type { Organization, TenancyService } from '../tenancy/index.js';
import { ENTITLED, effectiveSubscription, type PlanLimits } from './plan-limits.js';
import { COUNTER_KEYS, FREE_PLAN_KEY, type Plan, type PlanCatalogue } from './plans.js';
import type { BillingProviders } from './providers/index.js';
import { type BillingProvider, ProviderUnavailableError } from './providers/provider.js';
import { findSubscription, type SubscriptionRow } from './subscriptions.repo.js';
import type { UsageSources } from './usage.js';

export interface BillingServiceDeps {
  database: Database;
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization' | 'getUser'>;
  plans: PlanCatalogue;
  provider: BillingProvider;
  /** Every registered provider: a stored subscription may be another provider's than the one running. */
  providers: Pick<BillingProviders, 'find'>;
  idempotency: Idempotency;
  usage: UsageSources;
  planLimits: Pick<PlanLimits, 'entitlement'>;
}

export interface CheckoutInput {
  planKey: string;
  successUrl: string;
  cancelUrl: string;
}
export interface PortalInput {
  returnUrl: string;
}

export type BillingService = ReturnType<typeof createBillingService>;

export function createBillingService(deps: BillingServiceDeps) {
  const { db } = deps.database;

  /**
   * The caller's own organization, by id or slug, once `permission` is allowed on it; any other organization
   * is 404, as if it did not exist (before the permission is looked at).
   */
  async function ownOrganization(
    principal: Principal,
    idOrSlug: string,
    permission: Permission,
  ): Promise<Organization> {
    let organization: Organization;
    try {
      organization = await deps.tenancy.getOrganization(idOrSlug);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') throw notFound(`Organization ${idOrSlug}`);
      throw error;
    }
    if (organization.id !== principal.organizationId) throw notFound(`Organization ${idOrSlug}`);
    requirePermission(principal, permission, { kind: 'organization', organizationId: organization.id });
    return organization;
  }

  const effective = (row: SubscriptionRow | undefined) =>
    effectiveSubscription(row, deps.clock.now(), deps.providers);

  function providerKey(scope: string[], input: unknown): string {
    return `cadre_${sha256Hex([...scope, canonicalJson(input)].join('\n')).slice(0, 56)}`;
  }

  async function callProvider<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ProviderUnavailableError) {
        // The provider's message reaches the log through `cause`, never the client.
        throw Object.assign(
          serviceUnavailable('The payment provider is unavailable; retry later', 5, 'provider'),
          { cause: error },
        );
      }
      throw error;
    }
  }

  return {
    plans: (): Plan[] => deps.plans.list(),
    plansVersion: (): number => deps.plans.version(),
    /** Who may read the plan catalogue (its answer is serialized once, at start-up). */
    assertCanReadPlans: (principal: Principal) => requirePermission(principal, 'billing:read'),
    ownOrganization,

    async subscription(organizationId: string) {
      const row = effective(await findSubscription(db, organizationId));
      const provider = row?.provider ?? deps.provider.name;
      return {
        organizationId,
        planKey: row?.planKey ?? FREE_PLAN_KEY,
        status: row?.status ?? ('none' as const),
        currentPeriodStart: row?.currentPeriodStart?.toISOString() ?? null,
        currentPeriodEnd: row?.currentPeriodEnd?.toISOString() ?? null,
        cancelAtPeriodEnd: row?.cancelAtPeriodEnd ?? false,
        provider,
        testMode: deps.providers.find(provider)?.testMode ?? false,
      };
    },

    async usage(organizationId: string) {
      const { period, limits } = await deps.planLimits.entitlement(db, organizationId);
      const counters = await Promise.all(
        COUNTER_KEYS.map(async (key) => ({
          key,
          used: await deps.usage[key](organizationId, period),
          limit: limits[key],
        })),
      );
      return {
        organizationId,
        periodStart: period.start.toISOString(),
        periodEnd: period.end.toISOString(),
        counters,
      };
    },

    async checkout(
      principal: Principal,
      organizationId: string,
      input: CheckoutInput,
      key: string,
      baseUrl: string,
    ) {
      const plan = deps.plans.get(input.planKey);
      if (!plan?.active || plan.amount === 0 || !deps.provider.sellsPlan(plan.key)) {
        throw validationFailed('planKey', `plan ${JSON.stringify(input.planKey)} cannot be bought`);
      }
      const endpoint = 'billing.checkout';
      return deps.idempotency.run(
        { organizationId, userId: principal.userId, endpoint, key },
        input,
        async (): Promise<StoredAnswer> => {
          const current = effective(await findSubscription(db, organizationId));
          if (current && ENTITLED.has(current.status) && current.planKey !== FREE_PLAN_KEY) {
            throw new ApiError(
              'conflict',
              `The organization already has a ${current.status} ${current.planKey} subscription; use the portal to change it`,
            );
          }
          const user = await deps.tenancy.getUser(principal.userId);
          const session = await callProvider(() =>
            deps.provider.createCheckout({
              organizationId,
              userId: principal.userId,
              userEmail: user.email,
              plan,
              successUrl: input.successUrl,
              cancelUrl: input.cancelUrl,
              idempotencyKey: providerKey([organizationId, principal.userId, endpoint, key], input),
              customerId: current?.provider === deps.provider.name ? current.providerCustomerId : null,
              baseUrl,
            }),
          );
          return {
            status: 200,
            body: {
              data: {
                sessionId: session.sessionId,
                url: session.url,
                expiresAt: session.expiresAt.toISOString(),
              },
            },
          };
        },
      );
    },

    async portal(
      principal: Principal,
      organizationId: string,
      input: PortalInput,
      key: string,
      baseUrl: string,
    ) {
      const endpoint = 'billing.portal';
      return deps.idempotency.run(
        { organizationId, userId: principal.userId, endpoint, key },
        input,
        async (): Promise<StoredAnswer> => {
          const current = await findSubscription(db, organizationId);
          const customerId = current?.provider === deps.provider.name ? current.providerCustomerId : null;
          if (deps.provider.portalNeedsCustomer && !customerId) {
            throw new ApiError(
              'conflict',
              'The organization has no subscription to manage yet; start a checkout',
            );
          }
          const session = await callProvider(() =>
            deps.provider.createPortal({
              organizationId,
              userId: principal.userId,
              returnUrl: input.returnUrl,
              idempotencyKey: providerKey([organizationId, principal.userId, endpoint, key], input),
              customerId,
              baseUrl,
            }),
          );
          return { status: 200, body: { data: { sessionId: session.sessionId, url: session.url } } };
        },
      );
    },
  };
}
