import { performance } from 'node:perf_hooks';

/**
 * How this instance's capacity is shared between tenants (docs/operations.md, "Fairness between tenants").
 * A tenant is an organization (every credential of it together), or a client address for anonymous callers.
 */
export interface FairShareOptions {
  /** Requests in flight on this instance before the rest wait, lightest tenant first. */
  capacity: number;
  /** A tenant with fewer than this many requests in flight is admitted at once, even at capacity. */
  reserved: number;
  /** Half-life (ms) of the work a tenant has been admitted for, which orders the waiting tenants. */
  usageHalfLifeMs: number;
}

interface Waiter {
  admit: () => void;
  cost: number;
}

interface Tenant {
  /** Its requests in the queue's slots (writes). */
  active: number;
  /** Its requests in flight, counted but never queued (reads): they make it busy and add to its usage. */
  tracked: number;
  waiting: Waiter[];
  /** The cost of its admitted requests, decayed by usageHalfLifeMs since `usageAt`. */
  usage: number;
  usageAt: number;
}

/**
 * A work-conserving fair queue. Below capacity every request runs at once. At capacity a tenant still gets
 * its reserved slots at once (so a light tenant never queues behind a heavy one); past them its requests
 * wait, and each freed slot goes to the waiting tenant admitted for the least work lately. A request's cost
 * is estimated when it arrives (its body size: a large publish costs more than a read), so a tenant flooding
 * the instance with heavy requests waits for its own work while the others' requests go first.
 *
 * Costs count at admission, not by time in flight: a light tenant's requests that wait behind a heavy one
 * (for the database, the event loop) would otherwise look heavy themselves.
 */
export function createFairShare(options: FairShareOptions, now: () => number = () => performance.now()) {
  const tenants = new Map<string, Tenant>();
  /** Tenants with requests waiting: the candidates for a freed slot. */
  const queued = new Set<Tenant>();
  let active = 0;
  const decay = Math.LN2 / options.usageHalfLifeMs;

  const usageOf = (tenant: Tenant, at: number) => tenant.usage * Math.exp(-decay * (at - tenant.usageAt));
  const addUsage = (tenant: Tenant, cost: number) => {
    const at = now();
    tenant.usage = usageOf(tenant, at) + cost;
    tenant.usageAt = at;
  };
  /** Tenants with requests in flight (slots or counted reads), kept as they change: read per request. */
  let busyTenants = 0;
  const adjust = (tenant: Tenant, slots: number, reads: number) => {
    const wasBusy = tenant.active + tenant.tracked > 0;
    tenant.active += slots;
    tenant.tracked += reads;
    const isBusy = tenant.active + tenant.tracked > 0;
    if (wasBusy !== isBusy) busyTenants += isBusy ? 1 : -1;
  };
  const charge = (tenant: Tenant, cost: number) => {
    addUsage(tenant, cost);
    adjust(tenant, 1, 0);
    active++;
  };

  const tenantOf = (key: string): Tenant => {
    let tenant = tenants.get(key);
    if (!tenant) {
      tenant = { active: 0, tracked: 0, waiting: [], usage: 0, usageAt: 0 };
      tenants.set(key, tenant);
    }
    return tenant;
  };

  /**
   * Gives freed slots to the waiting tenants, least used first: any of them while the instance is below
   * capacity, else only those below their reserved slots.
   */
  const dispatch = () => {
    for (;;) {
      const at = now();
      const open = active < options.capacity;
      let next: Tenant | undefined;
      let least = Number.POSITIVE_INFINITY;
      for (const tenant of queued) {
        if (!open && tenant.active >= options.reserved) continue;
        const usage = usageOf(tenant, at);
        if (usage < least) {
          least = usage;
          next = tenant;
        }
      }
      if (!next) return;
      const waiter = next.waiting.shift()!;
      if (next.waiting.length === 0) queued.delete(next);
      charge(next, waiter.cost);
      waiter.admit();
    }
  };

  return {
    /** Takes a slot for `key` now if one is free to it; false when it has to wait. */
    tryEnter(key: string, cost: number): boolean {
      const tenant = tenantOf(key);
      if (tenant.waiting.length > 0) return false;
      if (active >= options.capacity && tenant.active >= options.reserved) return false;
      charge(tenant, cost);
      return true;
    },
    /** Resolves true once a slot is handed over, false if none was within `ms`. */
    wait(key: string, cost: number, ms: number): Promise<boolean> {
      const tenant = tenantOf(key);
      return new Promise((resolve) => {
        const waiter: Waiter = {
          cost,
          admit: () => {
            clearTimeout(timer);
            resolve(true);
          },
        };
        const timer = setTimeout(() => {
          const at = tenant.waiting.indexOf(waiter);
          if (at >= 0) tenant.waiting.splice(at, 1);
          if (tenant.waiting.length === 0) queued.delete(tenant);
          resolve(false);
        }, ms);
        tenant.waiting.push(waiter);
        queued.add(tenant);
      });
    },
    /** Counts a request of `key` that takes no slot (a read): it adds to the tenant's usage and busyness. */
    track(key: string, cost: number): void {
      const tenant = tenantOf(key);
      addUsage(tenant, cost);
      adjust(tenant, 0, 1);
    },
    untrack(key: string): void {
      const tenant = tenants.get(key);
      if (tenant) adjust(tenant, 0, -1);
    },
    /** Frees a slot of `key`, and hands it to a waiting tenant if any. */
    leave(key: string): void {
      const tenant = tenants.get(key);
      if (!tenant) return;
      adjust(tenant, -1, 0);
      active--;
      dispatch();
    },
    /**
     * Whether `key` is among the heaviest tenants now: it was admitted for at least the mean of the busy
     * tenants' recent work (or nobody is busy). Load shedding refuses these first.
     */
    isHeavy(key: string): boolean {
      const at = now();
      let busy = 0;
      let total = 0;
      for (const tenant of tenants.values()) {
        if (tenant.active === 0 && tenant.tracked === 0 && tenant.waiting.length === 0) continue;
        busy++;
        total += usageOf(tenant, at);
      }
      const tenant = tenants.get(key);
      if (!tenant || busy === 0) return busy === 0;
      return usageOf(tenant, at) >= total / busy;
    },
    /** Forgets idle tenants whose usage has decayed to nothing (called periodically). */
    sweep(): void {
      const at = now();
      for (const [key, tenant] of tenants) {
        if (
          tenant.active === 0 &&
          tenant.tracked === 0 &&
          tenant.waiting.length === 0 &&
          usageOf(tenant, at) < 1
        )
          tenants.delete(key);
      }
    },
    activeCount: () => active,
    /** Whether a tenant other than `key` has requests in flight now. */
    othersBusy(key: string): boolean {
      const tenant = tenants.get(key);
      const own = tenant && tenant.active + tenant.tracked > 0 ? 1 : 0;
      return busyTenants - own > 0;
    },
    tenantCount: () => tenants.size,
  };
}
