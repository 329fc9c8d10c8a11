import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isAttributing, runAsTenant, startAttributing, stopAttributing } from '../lib/tenant-context.js';
import { type ApiError, serviceUnavailable, tooManyRequests } from './errors.js';
import { createFairShare } from './fair-share.js';
import type { Overloaded } from './overload.js';
import type { RequestStep, ResponseStep } from './pipeline.js';
import { READ_METHODS, rateLimitSubject } from './rate-limit/rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The in-flight slots this request holds (credential, organization, fair share), until it is answered. */
    concurrencySlots: string[] | null;
    /** Whose work this request is (organization id, else its credential): set once it is admitted. */
    tenant: string | null;
  }
}

/**
 * How much one tenant may have in flight on this instance, and how the rest is shared (docs/operations.md,
 * "Fairness between tenants"). A rate limit bounds requests per minute; this bounds requests at once, so
 * one tenant's slow requests (heavy publishes, wide reads) cannot hold every database connection and the
 * event loop while another organization waits.
 */
export interface ConcurrencyOptions {
  enabled: boolean;
  /** Requests one credential (API key, console session, or anonymous address) may have in flight. */
  perCredential: number;
  /** Requests one organization's credentials may have in flight together. */
  perOrganization: number;
  /** Requests in flight on the instance before the rest wait their turn, lightest tenant first. */
  capacity: number;
  /** Requests a tenant may always start at once, even at capacity (a light tenant never queues). */
  reserved: number;
  /** How long a request over a limit waits for a slot before it is answered 429. */
  queueMs: number;
}

export const DEFAULT_CONCURRENCY: ConcurrencyOptions = {
  enabled: true,
  perCredential: 32,
  perOrganization: 64,
  capacity: 16,
  reserved: 2,
  queueMs: 2_000,
};

/** Request bodies are weighed in units of this size: a 160 KB publish costs 11, a read 1. */
const COST_UNIT_BYTES = 16 * 1024;
const USAGE_HALF_LIFE_MS = 1_000;

interface Gate {
  active: number;
  waiting: Array<() => void>;
}

/** In-flight counts with FIFO waiting: a freed slot goes to the oldest waiter. */
function createGates() {
  const gates = new Map<string, Gate>();
  return {
    tryEnter(key: string, limit: number): boolean {
      let gate = gates.get(key);
      if (!gate) {
        gate = { active: 0, waiting: [] };
        gates.set(key, gate);
      }
      if (gate.active >= limit || gate.waiting.length > 0) return false;
      gate.active++;
      return true;
    },
    /** Resolves true when a slot is handed over within `ms`, false when the wait ran out. */
    wait(key: string, ms: number): Promise<boolean> {
      const gate = gates.get(key)!;
      return new Promise((resolve) => {
        const admit = () => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => {
          const at = gate.waiting.indexOf(admit);
          if (at >= 0) gate.waiting.splice(at, 1);
          if (gate.active === 0 && gate.waiting.length === 0) gates.delete(key);
          resolve(false);
        }, ms);
        gate.waiting.push(admit);
      });
    },
    leave(key: string): void {
      const gate = gates.get(key);
      if (!gate) return;
      const next = gate.waiting.shift();
      // The slot passes straight to the next waiter: active stays the same.
      if (next) {
        next();
        return;
      }
      gate.active--;
      if (gate.active === 0) gates.delete(key);
    },
    activeOf: (key: string) => gates.get(key)?.active ?? 0,
  };
}

/**
 * Request step (after authentication and the rate limit). Takes, in order, a slot of the credential, of its
 * organization, and of the instance's fair share, waiting up to `queueMs` for each; frees them when the
 * answer is done or the client goes away. Past the wait: 429 `concurrency_limited` with `Retry-After`.
 * While the instance sheds load, it refuses the heaviest tenants' requests (503) and serves the others.
 * Routes with `rateLimit: false` (probes, metrics) are not counted.
 */
export function createConcurrencyLimit(
  options: ConcurrencyOptions,
  /** Whether statements wait for the database now: tenants then take turns there (src/lib/tenant-turns.ts). */
  databaseContended: () => boolean = () => false,
  /** Told when tenants start competing for the database (attribution goes on), not once per request. */
  onTenantsCompete: () => void = () => {},
) {
  const gates = createGates();
  // Work is attributed to tenants (src/lib/tenant-context.ts) from the first request that finds several
  // tenants with requests in flight and statements waiting for the database, until a sweep finds no such
  // moment in a whole interval.
  let contendedAt = Number.NEGATIVE_INFINITY;
  const noteContention = (tenant: string) => {
    if (!fair.othersBusy(tenant) || !databaseContended()) return;
    contendedAt = performance.now();
    if (isAttributing()) return;
    startAttributing();
    onTenantsCompete();
  };
  const fair = createFairShare({
    capacity: options.capacity,
    reserved: options.reserved,
    usageHalfLifeMs: USAGE_HALF_LIFE_MS,
  });
  const sweepIntervalMs = 10 * USAGE_HALF_LIFE_MS;
  const sweeper = setInterval(() => {
    fair.sweep();
    if (performance.now() - contendedAt > sweepIntervalMs) stopAttributing();
  }, sweepIntervalMs);
  sweeper.unref();

  const refuse = (what: string): ApiError =>
    tooManyRequests(
      `Too many requests in flight for this ${what}: wait for some to finish, then retry`,
      1,
      undefined,
      'concurrency_limited',
    );

  const shed = (health: Overloaded) => serviceUnavailable(health.reason, health.retryAfterS, health.cause);

  /** Frees what a request holds, once: when its answer is out, or when its client went away first. */
  const releaseSlots = (request: FastifyRequest) => {
    const held = request.concurrencySlots;
    if (!held) return;
    request.concurrencySlots = null;
    for (const key of held) {
      const kind = key.charCodeAt(0);
      if (kind === 102 /* 'f': a fair-share slot */) fair.leave(key.slice(2));
      else if (kind === 114 /* 'r': a read counted by the fair share */) fair.untrack(key.slice(2));
      else gates.leave(key);
    }
  };
  const release: ResponseStep = (request) => releaseSlots(request);

  /** One admission stage: the credential's gate, the organization's, then the fair share. */
  interface Stage {
    key: string;
    limit: number;
    what: string;
  }
  const enterNow = (stage: Stage, cost: number) =>
    stage.limit < 0 ? fair.tryEnter(stage.key.slice(2), cost) : gates.tryEnter(stage.key, stage.limit);
  const enterLater = (stage: Stage, cost: number) =>
    stage.limit < 0
      ? fair.wait(stage.key.slice(2), cost, options.queueMs)
      : gates.wait(stage.key, options.queueMs);
  const leave = (stage: Stage) => (stage.limit < 0 ? fair.leave(stage.key.slice(2)) : gates.leave(stage.key));

  /** Takes the stages from `from` on, waiting where it must; the slots taken so far are on the request. */
  async function admitFrom(request: FastifyRequest, stages: Stage[], from: number, cost: number) {
    for (let i = from; i < stages.length; i++) {
      const stage = stages[i]!;
      if (enterNow(stage, cost)) {
        request.concurrencySlots!.push(stage.key);
        continue;
      }
      if (!(await enterLater(stage, cost))) {
        releaseSlots(request);
        return refuse(stage.what);
      }
      // Released meanwhile (the client left while waiting): this slot goes straight back.
      if (!request.concurrencySlots) {
        leave(stage);
        return undefined;
      }
      request.concurrencySlots.push(stage.key);
    }
    return undefined;
  }

  // No listener or closure per request: the slots live on the request, and the pipeline's response step
  // (answer sent) or Fastify's abort hook (client gone) gives them back.
  const step: RequestStep = (request) => {
    const overloaded = request.overloaded;
    if (request.routeConfig.rateLimit === false) return overloaded ? shed(overloaded) : undefined;
    const credential = `c:${rateLimitSubject(request).key}`;
    const organizationId = request.principal?.organizationId;
    const tenant = organizationId ?? credential;
    if (overloaded && fair.isHeavy(tenant)) return shed(overloaded);
    request.tenant = tenant;
    noteContention(tenant);
    const length = Number(request.headers['content-length']);
    const cost = length > 0 ? 1 + Math.floor(length / COST_UNIT_BYTES) : 1;
    const stages: Stage[] = [{ key: credential, limit: options.perCredential, what: 'credential' }];
    if (organizationId) {
      stages.push({ key: `o:${organizationId}`, limit: options.perOrganization, what: 'organization' });
    }
    // Writes take a turn in the fair share; reads are bounded by the two limits above only, so one tenant's
    // concurrent reads still batch into few database queries (the fair share's capacity would serialize them).
    const read = READ_METHODS.has(request.method);
    if (!read) stages.push({ key: `f:${tenant}`, limit: -1, what: 'instance' });
    request.concurrencySlots = [];
    if (read) {
      // Counted from arrival (not only once admitted): a tenant flooding reads is heavy while it waits too.
      fair.track(tenant, cost);
      request.concurrencySlots.push(`r:${tenant}`);
    }
    // The common case, every slot free, costs no promise.
    for (let i = 0; i < stages.length; i++) {
      if (!enterNow(stages[i]!, cost)) return admitFrom(request, stages, i, cost);
      request.concurrencySlots.push(stages[i]!.key);
    }
    return undefined;
  };

  return {
    step,
    release,
    /** Registers the abort hook on the app (a client gone before its answer frees its slots). */
    register(app: FastifyInstance) {
      app.decorateRequest('concurrencySlots', null);
      app.decorateRequest('tenant', null);
      // The handler, and all it starts, runs as the request's tenant: the embedded database takes turns
      // between tenants by it. Here rather than with the request step: the body is read in between, on the
      // socket's own async context, which would lose it.
      app.addHook('preHandler', (request, _reply, done) => {
        // runAsTenant only sets the context while tenants compete; otherwise it simply calls `done`.
        if (request.tenant) runAsTenant(request.tenant, done);
        else done();
      });
      app.addHook('onRequestAbort', (request, done) => {
        releaseSlots(request);
        done();
      });
      app.addHook('onClose', (_instance, done) => {
        clearInterval(sweeper);
        done();
      });
    },
    activeOf: gates.activeOf,
    /** Requests holding a slot of the instance's fair share. */
    instanceActive: fair.activeCount,
  };
}
