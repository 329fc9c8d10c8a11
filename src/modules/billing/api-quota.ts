import type { Database } from '../../db/client.js';
import { ApiError } from '../../http/errors.js';
import { countsAsApiRequest } from '../../http/faces.js';
import type { RequestStep } from '../../http/pipeline.js';
import type { Clock } from '../../lib/clock.js';
import { describeLimit, type PlanLimits } from './plan-limits.js';
import type { UsageSource } from './usage.js';

interface Allowance {
  /** null: the plan sets no limit. */
  limit: number | null;
  /** The limit in words for the refusal (the plan's, or an operator's override): see describeLimit. */
  described: { sentence: string; detail: string };
  periodEnd: number;
  /** Requests counted in the period: the meter's total when loaded, plus those admitted here since. */
  used: number;
  loadedAt: number;
  refreshing: boolean;
}

/**
 * The `apiRequests` plan limit (docs/billing.md, "Plan limits"): a request step that refuses an
 * organization's counted requests once its period's quota is used, 429 `plan_quota_exceeded` with
 * `Retry-After` until the period renews. Each organization's allowance is read from the database at most
 * every `refreshMs` and counted in memory in between, so the check costs no query per request; with
 * several instances an organization may overshoot by what the others admitted since their last flush.
 * Routes marked `apiQuota: false` (billing: the way to raise the limit) are always served.
 */
export function createApiRequestQuota(deps: {
  database: Database;
  clock: Clock;
  planLimits: Pick<PlanLimits, 'entitlement'>;
  usage: UsageSource;
  refreshMs: number;
  onError: (error: unknown) => void;
}) {
  const allowances = new Map<string, Allowance>();
  // An organization's first requests arriving together wait for one read.
  const loading = new Map<string, Promise<Allowance>>();

  const loadOnce = (organizationId: string): Promise<Allowance> => {
    let pending = loading.get(organizationId);
    if (!pending) {
      pending = load(organizationId).finally(() => loading.delete(organizationId));
      loading.set(organizationId, pending);
    }
    return pending;
  };

  async function load(organizationId: string): Promise<Allowance> {
    const current = await deps.planLimits.entitlement(deps.database.db, organizationId);
    const used = await deps.usage(organizationId, current.period);
    const allowance: Allowance = {
      limit: current.limits.apiRequests,
      described: describeLimit(current, 'apiRequests'),
      periodEnd: current.period.end.getTime(),
      used,
      loadedAt: deps.clock.now().getTime(),
      refreshing: false,
    };
    allowances.set(organizationId, allowance);
    return allowance;
  }

  const admit = (allowance: Allowance, now = deps.clock.now().getTime()): ApiError | undefined => {
    if (allowance.limit === null || allowance.used < allowance.limit || now >= allowance.periodEnd) {
      allowance.used++;
      return undefined;
    }
    const retryAfterS = Math.max(1, Math.ceil((allowance.periodEnd - now) / 1000));
    return new ApiError(
      'plan_quota_exceeded',
      `${allowance.described.sentence}; this organization has used them. Upgrade the plan or wait for the next period (${new Date(allowance.periodEnd).toISOString()}).`,
      [{ path: 'apiRequests', message: allowance.described.detail }],
      { 'Retry-After': String(retryAfterS) },
    );
  };

  const step: RequestStep = (request) => {
    const principal = request.principal;
    if (!principal || !countsAsApiRequest(request) || request.routeConfig.apiQuota === false) {
      return undefined;
    }
    const allowance = allowances.get(principal.organizationId);
    if (!allowance) return loadOnce(principal.organizationId).then((loaded) => admit(loaded));
    const now = deps.clock.now().getTime();
    // Stale or past its period: read again in the background; this request is judged on what is known.
    if ((now - allowance.loadedAt >= deps.refreshMs || now >= allowance.periodEnd) && !allowance.refreshing) {
      allowance.refreshing = true;
      loadOnce(principal.organizationId).catch((error: unknown) => {
        allowance.refreshing = false;
        deps.onError(error);
      });
    }
    return admit(allowance, now);
  };

  return {
    step,
    /** Forgets an organization's allowance (its plan or an override changed): read again on its next request. */
    forget: (organizationId: string) => allowances.delete(organizationId),
  };
}
