import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ApiError, tooManyRequests } from './errors.js';
import type { RequestStep, ResponseStep } from './pipeline.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The in-flight slots this request holds (credential, organization), until it is answered. */
    concurrencySlots: string[] | null;
  }
}

import { rateLimitSubject } from './rate-limit/rate-limit.js';

/**
 * How much one tenant may have in flight on this instance (docs/operations.md, "Fairness between
 * tenants"). A rate limit bounds requests per minute; this bounds requests at once, so one credential's
 * slow requests (heavy publishes, wide reads) cannot hold every database connection and the event loop
 * while another organization waits.
 */
export interface ConcurrencyOptions {
  enabled: boolean;
  /** Requests one credential (API key, console session, or anonymous address) may have in flight. */
  perCredential: number;
  /** Requests one organization's credentials may have in flight together. */
  perOrganization: number;
  /** How long a request over a limit waits for a slot before it is answered 429. */
  queueMs: number;
}

export const DEFAULT_CONCURRENCY: ConcurrencyOptions = {
  enabled: true,
  perCredential: 32,
  perOrganization: 64,
  queueMs: 2_000,
};

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
 * Request step (after authentication and the rate limit): takes a slot of the credential and of its
 * organization, waiting up to `queueMs` for one, and frees them when the answer is done or the client goes
 * away. Past the wait: 429 `concurrency_limited` with `Retry-After`. Routes with `rateLimit: false`
 * (probes, metrics) are not counted.
 */
export function createConcurrencyLimit(options: ConcurrencyOptions) {
  const gates = createGates();

  const enter = async (key: string, limit: number): Promise<boolean> =>
    gates.tryEnter(key, limit) || gates.wait(key, options.queueMs);

  const refuse = (what: string): ApiError =>
    tooManyRequests(
      `Too many requests in flight for this ${what}: wait for some to finish, then retry`,
      1,
      undefined,
      'concurrency_limited',
    );

  /** Frees what a request holds, once: when its answer is out, or when its client went away first. */
  const releaseSlots = (request: FastifyRequest) => {
    const held = request.concurrencySlots;
    if (!held) return;
    request.concurrencySlots = null;
    for (const key of held) gates.leave(key);
  };
  const release: ResponseStep = (request) => releaseSlots(request);

  // No listener or closure per request: the slots live on the request, and the pipeline's response step
  // (answer sent) or Fastify's abort hook (client gone) gives them back.
  const step: RequestStep = (request) => {
    if (request.routeConfig.rateLimit === false) return undefined;
    const credential = `c:${rateLimitSubject(request).key}`;
    const organizationId = request.principal?.organizationId;
    const organization = organizationId ? `o:${organizationId}` : undefined;
    // The common case, both slots free, costs no promise.
    if (gates.tryEnter(credential, options.perCredential)) {
      if (!organization) {
        request.concurrencySlots = [credential];
        return undefined;
      }
      if (gates.tryEnter(organization, options.perOrganization)) {
        request.concurrencySlots = [credential, organization];
        return undefined;
      }
      request.concurrencySlots = [credential];
      return waitFor(request, organization, options.perOrganization, 'organization');
    }
    return (async () => {
      if (!(await enter(credential, options.perCredential))) return refuse('credential');
      if (request.raw.destroyed) {
        gates.leave(credential); // the client left while waiting
        return undefined;
      }
      request.concurrencySlots = [credential];
      return organization
        ? waitFor(request, organization, options.perOrganization, 'organization')
        : undefined;
    })();
  };

  async function waitFor(request: FastifyRequest, key: string, limit: number, what: string) {
    if (!(await enter(key, limit))) {
      releaseSlots(request);
      return refuse(what);
    }
    const held = request.concurrencySlots;
    // Released meanwhile (the client left while waiting): this slot goes straight back.
    if (!held) gates.leave(key);
    else held.push(key);
    return undefined;
  }

  return {
    step,
    release,
    /** Registers the abort hook on the app (a client gone before its answer frees its slots). */
    register(app: FastifyInstance) {
      app.decorateRequest('concurrencySlots', null);
      app.addHook('onRequestAbort', (request, done) => {
        releaseSlots(request);
        done();
      });
    },
    activeOf: gates.activeOf,
  };
}
