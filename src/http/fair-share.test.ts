import { describe, expect, it } from 'vitest';
import { createFairShare } from './fair-share.js';

function fairShare(capacity: number, reserved: number) {
  let clock = 0;
  const share = createFairShare({ capacity, reserved, usageHalfLifeMs: 1_000 }, () => clock);
  return { share, advance: (ms: number) => (clock += ms) };
}

/** Records the order in which waiting requests are admitted. */
function track(share: ReturnType<typeof createFairShare>, tenant: string, cost: number, order: string[]) {
  return share.wait(tenant, cost, 60_000).then((admitted) => {
    if (admitted) order.push(tenant);
    return admitted;
  });
}

describe('fair share', () => {
  it('tells whether another tenant has requests in flight, slots and counted reads alike', () => {
    const { share } = fairShare(4, 1);
    expect(share.othersBusy('a')).toBe(false);
    share.tryEnter('a', 1);
    share.tryEnter('a', 1);
    expect(share.othersBusy('a')).toBe(false);
    expect(share.othersBusy('b')).toBe(true);
    share.track('b', 1);
    expect(share.othersBusy('a')).toBe(true);
    share.leave('a');
    share.leave('a');
    expect(share.othersBusy('b')).toBe(false);
    share.untrack('b');
    expect(share.othersBusy('c')).toBe(false);
  });

  it('admits everything below capacity, then makes a tenant past its reserved slots wait', () => {
    const { share } = fairShare(3, 1);
    expect(share.tryEnter('a', 1)).toBe(true);
    expect(share.tryEnter('a', 1)).toBe(true);
    expect(share.tryEnter('a', 1)).toBe(true);
    expect(share.tryEnter('a', 1)).toBe(false);
    expect(share.activeCount()).toBe(3);
  });

  it('admits a tenant with nothing in flight at once, even at capacity', () => {
    const { share } = fairShare(2, 1);
    share.tryEnter('a', 10);
    share.tryEnter('a', 10);
    expect(share.tryEnter('b', 1)).toBe(true);
    expect(share.tryEnter('b', 1)).toBe(false);
    expect(share.activeCount()).toBe(3);
  });

  it('gives a freed slot to the waiting tenant admitted for the least work, whoever waited longest', async () => {
    const { share } = fairShare(1, 0);
    share.tryEnter('heavy', 10);
    const order: string[] = [];
    const waits = [
      track(share, 'heavy', 10, order),
      track(share, 'heavy', 10, order),
      track(share, 'light', 1, order),
    ];
    share.leave('heavy');
    await Promise.resolve();
    expect(order).toEqual(['light']);
    share.leave('light');
    share.leave('heavy');
    expect(await Promise.all(waits)).toEqual([true, true, true]);
    expect(order).toEqual(['light', 'heavy', 'heavy']);
  });

  it('lets usage fade: a tenant heavy long ago is not held back behind one heavy now', async () => {
    const { share, advance } = fairShare(1, 0);
    share.tryEnter('old', 50);
    share.leave('old');
    advance(10_000); // ten half-lives: 50 → 0.05
    share.tryEnter('now', 5);
    const order: string[] = [];
    const waits = [track(share, 'now', 5, order), track(share, 'old', 5, order)];
    share.leave('now');
    await Promise.resolve();
    expect(order).toEqual(['old']);
    share.leave('old');
    share.leave('now');
    await Promise.all(waits);
  });

  it("hands a tenant's freed reserved slot to its own next request, though others fill the capacity", async () => {
    const { share } = fairShare(1, 1);
    share.tryEnter('heavy', 10);
    share.tryEnter('light', 1); // reserved: over capacity
    const order: string[] = [];
    const next = track(share, 'light', 1, order);
    share.leave('light');
    expect(await next).toBe(true);
    expect(order).toEqual(['light']);
    share.leave('light');
    share.leave('heavy');
  });

  it('answers false when no slot frees within the wait, and forgets the waiter', async () => {
    const { share } = fairShare(1, 0);
    share.tryEnter('a', 1);
    expect(await share.wait('b', 1, 20)).toBe(false);
    share.leave('a');
    expect(share.activeCount()).toBe(0);
    expect(share.tryEnter('b', 1)).toBe(true);
  });

  it('names the heaviest busy tenants for shedding, never a light one', () => {
    const { share } = fairShare(10, 1);
    expect(share.isHeavy('anyone')).toBe(true); // nobody busy: overload is nobody's in particular
    for (let i = 0; i < 5; i++) share.tryEnter('flood', 10);
    share.tryEnter('quiet', 1);
    expect(share.isHeavy('flood')).toBe(true);
    expect(share.isHeavy('quiet')).toBe(false);
    expect(share.isHeavy('newcomer')).toBe(false);
  });

  it('forgets idle tenants once their usage has faded', () => {
    const { share, advance } = fairShare(10, 1);
    share.tryEnter('a', 3);
    share.tryEnter('b', 3);
    share.leave('a');
    advance(10_000);
    share.sweep();
    expect(share.tenantCount()).toBe(1); // b still has a request in flight
  });
});
