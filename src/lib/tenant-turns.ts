/**
 * A resource that `capacity` holders may use at once (the embedded database's one connection, a pool's
 * connections), shared between tenants by taking turns: each tenant with work waiting has a queue, and
 * each freed place goes to the next tenant round the ring, not to the oldest waiter. A tenant with a
 * hundred requests waiting delays another tenant's one by a single turn, not by a hundred.
 *
 * `defer` postpones choosing the next holder (the embedded worker lets the messages already sent reach
 * their queues first); by default a free place is given at once.
 */
export function createTenantTurns(capacity: number, defer?: (choose: () => void) => void) {
  /** Waiters per tenant; Map order is the ring (a tenant served goes to the back). */
  const waiting = new Map<string, Array<() => void>>();
  let holders = 0;
  let waiters = 0;
  let choosing = false;

  function choose() {
    choosing = false;
    while (holders < capacity) {
      const start = takeTurn();
      if (!start) return;
      holders++;
      start();
    }
  }

  function takeTurn(): (() => void) | undefined {
    for (const [tenant, queue] of waiting) {
      waiting.delete(tenant);
      const start = queue.shift();
      if (queue.length > 0) waiting.set(tenant, queue);
      waiters--;
      return start;
    }
    return undefined;
  }

  function schedule() {
    if (holders >= capacity || waiters === 0 || choosing) return;
    if (!defer) return choose();
    choosing = true;
    defer(choose);
  }

  return {
    /** Calls `start` when `tenant` holds a place; whoever holds it calls `release` once, when done. */
    wait(tenant: string, start: () => void): void {
      const queue = waiting.get(tenant);
      if (queue) queue.push(start);
      else waiting.set(tenant, [start]);
      waiters++;
      schedule();
    },
    /** Gives up a waiter that has not started yet (it timed out); false when it already started. */
    cancel(tenant: string, start: () => void): boolean {
      const queue = waiting.get(tenant);
      const at = queue?.indexOf(start) ?? -1;
      if (!queue || at < 0) return false;
      queue.splice(at, 1);
      if (queue.length === 0) waiting.delete(tenant);
      waiters--;
      return true;
    },
    release(): void {
      holders--;
      schedule();
    },
    /** Waiters not yet started, every tenant together. */
    waitingCount: () => waiters,
  };
}
