/** The usage counters every plan limits (docs/billing.md). */
export const COUNTER_KEYS = ['apiRequests', 'expertVersions', 'apiKeys', 'connections'] as const;
export type CounterKey = (typeof COUNTER_KEYS)[number];

export interface Plan {
  key: string;
  name: string;
  description: string;
  /** Price per interval in minor units of `currency` (cents). */
  amount: number;
  currency: string;
  interval: 'month' | 'year';
  features: string[];
  /** Per counter; null: no limit (an operator's catalogue may leave counters, or all, unlimited). */
  limits: Record<CounterKey, number | null>;
  active: boolean;
}

/**
 * The built-in catalogue, provider-neutral: a provider maps plan keys to its own prices (Stripe:
 * CADRE_STRIPE_PRICES). `free` is what an organization without a subscription has. An operator replaces it
 * with CADRE_PLANS_FILE (plans-file.ts); docs/plans.example.toml is this catalogue as such a file (a test
 * keeps the two equal).
 */
export const DEFAULT_PLANS: readonly Plan[] = [
  {
    key: 'free',
    name: 'Free',
    description: 'For trying Cadre out and personal projects.',
    amount: 0,
    currency: 'usd',
    interval: 'month',
    features: ['Public registry publishing', 'Community support'],
    limits: { apiRequests: 10_000, expertVersions: 50, apiKeys: 5, connections: 3 },
    active: true,
  },
  {
    key: 'plus',
    name: 'Plus',
    description: 'For individuals shipping Experts every day.',
    amount: 900,
    currency: 'usd',
    interval: 'month',
    features: ['Everything in Free', 'Higher limits', 'Email support'],
    limits: { apiRequests: 100_000, expertVersions: 500, apiKeys: 25, connections: 20 },
    active: true,
  },
  {
    key: 'team',
    name: 'Team',
    description: 'For teams sharing Experts, projects and connections.',
    amount: 4900,
    currency: 'usd',
    interval: 'month',
    features: ['Everything in Plus', 'Team Experts', 'Priority support'],
    limits: { apiRequests: 1_000_000, expertVersions: 5_000, apiKeys: 200, connections: 200 },
    active: true,
  },
];

export const FREE_PLAN_KEY = 'free';

export interface PlanCatalogue {
  /** Active plans, cheapest first. */
  list(): Plan[];
  get(key: string): Plan | undefined;
  free(): Plan;
  /** Counts replacements: what is derived from the catalogue (a serialized answer) is made again when it moves. */
  version(): number;
  /** Serves another catalogue from now on (CADRE_PLANS_FILE read again on SIGHUP). */
  replace(plans: readonly Plan[]): void;
}

/** The catalogue's plans, checked: plans-file.ts reports these problems with the file's positions first. */
function index(plans: readonly Plan[]) {
  const byKey = new Map(plans.map((plan) => [plan.key, plan]));
  const free = byKey.get(FREE_PLAN_KEY);
  if (!free) throw new Error('the plan catalogue needs a "free" plan');
  const active = plans
    .filter((plan) => plan.active)
    .sort((a, b) => a.amount - b.amount || a.key.localeCompare(b.key));
  return { byKey, free, active };
}

export function createPlanCatalogue(plans: readonly Plan[] = DEFAULT_PLANS): PlanCatalogue {
  let current = index(plans);
  let version = 0;
  return {
    list: () => current.active,
    get: (key) => current.byKey.get(key),
    free: () => current.free,
    version: () => version,
    replace(next) {
      current = index(next);
      version++;
    },
  };
}
