import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../lib/clock.js';
import type { Principal } from '../auth.js';
import { addressKey } from '../client-address.js';
import { type ApiError, tooManyRequests } from '../errors.js';
import type { RequestStep, ResponseStep } from '../pipeline.js';
import type { RateLimitHit, RateLimitStore } from './store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false` exempts a route (health probes, the OpenAPI document). */
    rateLimit?: false;
  }
}

/**
 * Requests in any window of `windowMs` (a sliding window: docs/operations.md "Rate limits") for each class of
 * caller. Reads are GET, HEAD and OPTIONS; everything else writes.
 */
export interface RateLimitOptions {
  enabled: boolean;
  windowMs: number;
  read: number;
  write: number;
  anonymousRead: number;
  anonymousWrite: number;
  /** Failed authentications (401) per client IP and window before its requests are refused unread. */
  authFailures: number;
  /**
   * An organization's budget over all its credentials and sessions together, as a multiple of one
   * credential's (`read` and `write`): new keys or sessions share it instead of each bringing a fresh one.
   */
  organizationMultiple: number;
  /**
   * SCIM requests per organization (all its SCIM traffic, whatever address the provisioning client calls
   * from), instead of the anonymous budgets: one organization's sync never spends another's.
   */
  scimRead: number;
  scimWrite: number;
  /** Single sign-on starts (`GET /auth/sso/start`) per client IP: each one writes a pending sign-in. */
  ssoStarts: number;
}

export const DEFAULT_RATE_LIMITS: RateLimitOptions = {
  enabled: true,
  windowMs: 60_000,
  read: 6_000,
  write: 1_200,
  anonymousRead: 3_000,
  anonymousWrite: 600,
  authFailures: 600,
  organizationMultiple: 5,
  scimRead: 1_200,
  scimWrite: 600,
  ssoStarts: 30,
};

/** Methods that change nothing: reads, for rate limits, the fair share and CSRF alike. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

type CountResult = RateLimitHit | undefined;

/**
 * Calls the store, failing open: a store outage (Redis down) must not turn into errors for every request,
 * so the request goes through uncounted and a warning is logged (at most once per 10 s). Synchronous when
 * the store is.
 */
function createFailOpenCounter(store: RateLimitStore, log: () => FastifyBaseLogger) {
  let lastWarning = 0;
  const failOpen = (error: unknown): undefined => {
    if (Date.now() - lastWarning > 10_000) {
      lastWarning = Date.now();
      log().warn({ err: error, store: store.kind }, 'rate-limit store unavailable; requests pass uncounted');
    }
    return undefined;
  };
  return (
    key: string,
    limit: number,
    windowMs: number,
    nowMs: number,
  ): CountResult | Promise<CountResult> => {
    try {
      const hit = store.hit(key, limit, windowMs, nowMs);
      return hit instanceof Promise ? hit.catch(failOpen) : hit;
    } catch (error) {
      return failOpen(error);
    }
  };
}

/** Who a request is counted against: its credential, the admin token, or (anonymous) its client address. */
export function rateLimitSubject(request: FastifyRequest): { key: string; anonymous: boolean } {
  const principal = request.principal;
  if (principal) return { key: credentialKey(principal), anonymous: false };
  if (request.routeConfig.auth === 'admin') return { key: 'admin', anonymous: false };
  return { key: `ip:${addressKey(request.ip)}`, anonymous: true };
}

const credentialKey = (principal: Principal): string =>
  principal.kind === 'apiKey' ? `key:${principal.apiKeyId}` : `session:${principal.sessionId}`;

interface LimitDeps {
  store: RateLimitStore;
  clock: Clock;
  options: RateLimitOptions;
  log: () => FastifyBaseLogger;
}

/**
 * Request step (after authentication, so a credential is known): counts every request and answers 429
 * `rate_limited` with `Retry-After` past the limit. Every answer of a limited route carries the
 * RateLimit-* headers. Undefined when rate limits are off.
 */
export function createRateLimitStep(deps: LimitDeps): RequestStep | undefined {
  const { options, clock } = deps;
  if (!options.enabled) return undefined;
  const count = createFailOpenCounter(deps.store, deps.log);
  return (request, reply) => {
    if (request.routeConfig.rateLimit === false) return undefined;
    const subject = rateLimitSubject(request);
    const read = READ_METHODS.has(request.method);
    const kind = read ? 'read' : 'write';
    const limit = subject.anonymous
      ? read
        ? options.anonymousRead
        : options.anonymousWrite
      : read
        ? options.read
        : options.write;
    const nowMs = clock.now().getTime();
    const own: Budget = {
      limit,
      cause: `${subject.anonymous ? 'anonymous' : 'credential'}_${kind}`,
      whose: '',
    };
    const organizationId = request.principal?.organizationId;
    const shared: Budget | undefined = organizationId
      ? {
          limit: limit * options.organizationMultiple,
          cause: `organization_${kind}`,
          whose: ' for this organization (all its keys and sessions together)',
        }
      : undefined;
    const settleBoth = (ownHit: CountResult): ApiError | undefined | Promise<ApiError | undefined> => {
      // The organization's budget is offered only what the credential's own admits (a refused request is
      // counted by neither).
      if (!shared || !organizationId || (ownHit && !ownHit.allowed)) {
        return judge(reply, [[own, ownHit]], nowMs, read, options);
      }
      const sharedHit = count(
        `o${read ? 'r' : 'w'}:${organizationId}`,
        shared.limit,
        options.windowMs,
        nowMs,
      );
      if (sharedHit instanceof Promise) {
        return sharedHit.then((found) =>
          judge(
            reply,
            [
              [own, ownHit],
              [shared, found],
            ],
            nowMs,
            read,
            options,
          ),
        );
      }
      return judge(
        reply,
        [
          [own, ownHit],
          [shared, sharedHit],
        ],
        nowMs,
        read,
        options,
      );
    };
    const hit = count(`${read ? 'r' : 'w'}:${subject.key}`, limit, options.windowMs, nowMs);
    return hit instanceof Promise ? hit.then(settleBoth) : settleBoth(hit);
  };
}

/** Budgets of their own, counted by a key the route knows (docs/operations.md, "Rate limits"). */
export type OwnBudgetName = 'scim' | 'sso_start';

/**
 * Counts a request against one of the own budgets under `key` (SCIM: the organization; a single sign-on start:
 * the client address), sets the RateLimit-* headers and answers the refusal (429 with Retry-After) for the
 * route to throw in its own error shape; undefined when it fits or rate limits are off.
 */
export type OwnBudgetCheck = (
  name: OwnBudgetName,
  key: string,
  request: FastifyRequest,
  reply: FastifyReply,
) => Promise<ApiError | undefined>;

export function createOwnBudgets(deps: LimitDeps): OwnBudgetCheck {
  const { options, clock } = deps;
  if (!options.enabled) return async () => undefined;
  const count = createFailOpenCounter(deps.store, deps.log);
  return async (name, key, request, reply) => {
    const read = READ_METHODS.has(request.method);
    const budget = ownBudget(name, read, options);
    const nowMs = clock.now().getTime();
    const hit = await count(`${name}:${read ? 'r' : 'w'}:${key}`, budget.limit, options.windowMs, nowMs);
    return judge(reply, [[budget, hit]], nowMs, read, options);
  };
}

function ownBudget(name: OwnBudgetName, read: boolean, options: RateLimitOptions): Budget {
  if (name === 'scim') {
    return {
      limit: read ? options.scimRead : options.scimWrite,
      cause: `scim_${read ? 'read' : 'write'}`,
      whose: ' for this organization’s SCIM provisioning',
    };
  }
  return {
    limit: options.ssoStarts,
    cause: 'sso_start',
    whose: ' to start single sign-on from this address',
  };
}

/** A limit a request is offered to: the caller's own, or its organization's shared one. */
interface Budget {
  limit: number;
  /** The refusal metrics' label (docs/operations.md). */
  cause: string;
  /** Words after "N writes per 60 s" in the refusal naming whose budget it is. */
  whose: string;
}

/**
 * Sets the RateLimit-* headers from the budget with the least room left, and answers 429 for the first
 * budget the request does not fit.
 */
function judge(
  reply: FastifyReply,
  offered: ReadonlyArray<readonly [Budget, CountResult]>,
  nowMs: number,
  read: boolean,
  options: RateLimitOptions,
): ApiError | undefined {
  let tightest: { budget: Budget; hit: RateLimitHit } | undefined;
  for (const [budget, hit] of offered) {
    if (!hit) continue;
    if (!hit.allowed) {
      setHeaders(reply, budget.limit, hit, nowMs);
      const retryS = secondsUntil(hit.retryAtMs, nowMs);
      return tooManyRequests(
        `Too many requests: ${budget.limit} ${read ? 'reads' : 'writes'} per ${options.windowMs / 1000} s${budget.whose}; retry after ${retryS} s`,
        retryS,
        budget.cause,
      );
    }
    if (!tightest || budget.limit - hit.count < tightest.budget.limit - tightest.hit.count)
      tightest = { budget, hit };
  }
  if (tightest) setHeaders(reply, tightest.budget.limit, tightest.hit, nowMs);
  return undefined;
}

function setHeaders(reply: FastifyReply, limit: number, hit: RateLimitHit, nowMs: number): void {
  reply.header('ratelimit-limit', `${limit}`);
  reply.header('ratelimit-remaining', `${Math.max(0, limit - hit.count)}`);
  reply.header('ratelimit-reset', `${secondsUntil(hit.resetAtMs, nowMs)}`);
}

/** Whole seconds from `nowMs` until `atMs`, at least 1 (what Retry-After and RateLimit-Reset carry). */
const secondsUntil = (atMs: number, nowMs: number): number => Math.max(1, Math.ceil((atMs - nowMs) / 1000));

/**
 * Guessing credentials: every 401 is counted per client IP (shared through the store, by `count`); past the
 * limit the address is refused with 429 by `gate`, before authentication runs (no key lookup), until its
 * the window has room again. Undefined when rate limits are off.
 */
export function createAuthFailureLimit(
  deps: LimitDeps,
): { gate: RequestStep; count: ResponseStep } | undefined {
  const { options, clock } = deps;
  if (!options.enabled) return undefined;
  const count = createFailOpenCounter(deps.store, deps.log);
  // Addresses over the limit, until when (this instance learns it from its own next 401 for that address).
  const blocked = new Map<string, number>();
  const remember = (ip: string, hit: CountResult) => {
    if (!hit || (hit.allowed && hit.count < options.authFailures)) return;
    if (blocked.size > 10_000) blocked.clear();
    blocked.set(ip, hit.retryAtMs);
  };
  return {
    gate: (request) => {
      if (blocked.size === 0) return undefined;
      const address = addressKey(request.ip);
      const until = blocked.get(address);
      if (until === undefined) return undefined;
      const nowMs = clock.now().getTime();
      if (until <= nowMs) {
        blocked.delete(address);
        return undefined;
      }
      const retryS = secondsUntil(until, nowMs);
      return tooManyRequests(
        `Too many failed authentications; retry after ${retryS} s`,
        retryS,
        'auth_failures',
      );
    },
    count: (request, reply) => {
      if (reply.statusCode !== 401) return;
      const address = addressKey(request.ip);
      const hit = count(`authfail:${address}`, options.authFailures, options.windowMs, clock.now().getTime());
      // The answer is out; a shared store's count lands when it lands (it fails open on its own).
      if (hit instanceof Promise) void hit.then((value) => remember(address, value));
      else remember(address, hit);
    },
  };
}

export interface ForeignResourceOptions {
  limit: number;
  windowMs: number;
}

/**
 * Requests naming Projects (or their environments, agents) outside the caller's organization. Services call
 * `record(principal)` just before answering such a request with its usual 404/422; past the limit it throws
 * 429 `foreign_resource_rate_limited` instead (the caller must fix the id, not retry). Counted per user.
 */
export interface ForeignResourceGuard {
  record(principal: Principal): Promise<void>;
}

export function createForeignResourceGuard(deps: {
  store: RateLimitStore;
  clock: Clock;
  options: ForeignResourceOptions;
  log: () => FastifyBaseLogger;
}): ForeignResourceGuard {
  const count = createFailOpenCounter(deps.store, deps.log);
  const { limit, windowMs } = deps.options;
  return {
    record: async (principal) => {
      const nowMs = deps.clock.now().getTime();
      const hit = await count(
        `foreign:${principal.organizationId}:${principal.userId}`,
        limit,
        windowMs,
        nowMs,
      );
      if (!hit || hit.allowed) return;
      throw tooManyRequests(
        `More than ${limit} requests in ${windowMs / 1000} s named Projects outside your organization; correct the Project id`,
        secondsUntil(hit.retryAtMs, nowMs),
        'foreign_resources',
        'foreign_resource_rate_limited',
      );
    },
  };
}

/**
 * For services answering "not found" for a Project (or its environment) outside the caller's organization:
 * counts the reference and throws `notFoundError`, or 429 `foreign_resource_rate_limited` past the limit.
 * Example (OAuth start, connections list): `if (!project) await rejectForeignResource(guard, principal, notFound('Project'))`.
 */
export async function rejectForeignResource(
  guard: ForeignResourceGuard,
  principal: Principal,
  notFoundError: ApiError,
): Promise<never> {
  await guard.record(principal);
  throw notFoundError;
}
