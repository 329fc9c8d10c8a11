import { describe, expect, it } from 'vitest';
import type { Change, ChangeBus, ChangeSubscriber } from '../../db/change-bus.js';
import { createRegistryReadCache, REGISTRY_CHANGED } from './registry.cache.js';

function fakeBus() {
  const subscribers = new Set<ChangeSubscriber>();
  let live = true;
  // The cache only listens: it needs the bus's subscribe and isLive.
  const bus: Pick<ChangeBus, 'subscribe' | 'isLive'> = {
    subscribe: (s) => {
      subscribers.add(s);
      return () => subscribers.delete(s);
    },
    isLive: () => live,
  };
  return {
    bus,
    deliver: (change: Change) => {
      for (const s of subscribers) s.onChange(change);
    },
    reset: () => {
      for (const s of subscribers) s.reset();
    },
    setLive: (value: boolean) => {
      live = value;
    },
  };
}

const answer = (body: string) => ({ body: Buffer.from(body), etag: `"${body}"` });

describe('registry read cache', () => {
  it('stores and serves answers per name and ref', () => {
    const { bus } = fakeBus();
    const cache = createRegistryReadCache(bus, 10);
    cache.set('a', '1.0.0', answer('x'), cache.token());
    expect(cache.get('a', '1.0.0')).toEqual(answer('x'));
    expect(cache.get('a', '')).toBeUndefined();
    expect(cache.get('b', '1.0.0')).toBeUndefined();
  });

  it('a change notification drops every entry of that name only', () => {
    const { bus, deliver } = fakeBus();
    const cache = createRegistryReadCache(bus, 10);
    for (const ref of ['', '1.0.0', 'latest']) cache.set('a', ref, answer(ref), cache.token());
    cache.set('b', '', answer('b'), cache.token());
    deliver({ topic: REGISTRY_CHANGED, name: 'a' });
    expect(cache.get('a', '')).toBeUndefined();
    expect(cache.get('a', '1.0.0')).toBeUndefined();
    expect(cache.get('b', '')).toEqual(answer('b'));
    expect(cache.size).toBe(1);
    deliver({ topic: 'api-key', name: 'b' });
    expect(cache.get('b', '')).toEqual(answer('b'));
  });

  it('a read that raced a change does not store what it read', () => {
    const { bus, deliver } = fakeBus();
    const cache = createRegistryReadCache(bus, 10);
    const token = cache.token();
    deliver({ topic: REGISTRY_CHANGED, name: 'a' });
    cache.set('a', '', answer('stale'), token);
    expect(cache.get('a', '')).toBeUndefined();
  });

  it('serves and stores nothing while the bus is down, and forgets everything on reset', () => {
    const { bus, reset, setLive } = fakeBus();
    const cache = createRegistryReadCache(bus, 10);
    cache.set('a', '', answer('x'), cache.token());
    setLive(false);
    expect(cache.get('a', '')).toBeUndefined();
    cache.set('b', '', answer('y'), cache.token());
    setLive(true);
    expect(cache.get('b', '')).toBeUndefined();
    reset();
    expect(cache.get('a', '')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('is bounded (least recently used first) and disabled at 0 entries', () => {
    const { bus } = fakeBus();
    const cache = createRegistryReadCache(bus, 3);
    for (const name of ['a', 'b', 'c', 'd']) cache.set(name, '', answer(name), cache.token());
    expect(cache.size).toBe(3);
    expect(cache.get('a', '')).toBeUndefined();
    expect(cache.get('d', '')).toEqual(answer('d'));
    // A read keeps an answer: 'b' was read before 'e' came, so 'c' goes.
    expect(cache.get('b', '')).toEqual(answer('b'));
    cache.set('e', '', answer('e'), cache.token());
    expect(cache.get('c', '')).toBeUndefined();
    expect(cache.get('b', '')).toEqual(answer('b'));
    const off = createRegistryReadCache(bus, 0);
    off.set('a', '', answer('a'), off.token());
    expect(off.get('a', '')).toBeUndefined();
  });

  it('keeps list answers until a change to any name', () => {
    const { bus, deliver } = fakeBus();
    const cache = createRegistryReadCache(bus, 10);
    cache.setList('q', answer('list'), cache.token());
    expect(cache.getList('q')).toEqual(answer('list'));
    deliver({ topic: REGISTRY_CHANGED, name: 'anything' });
    expect(cache.getList('q')).toBeUndefined();
    const token = cache.token();
    deliver({ topic: REGISTRY_CHANGED, name: 'x' });
    cache.setList('q', answer('stale'), token);
    expect(cache.getList('q')).toBeUndefined();
  });

  it('is bounded by bytes too, counting replaced and dropped answers exactly', () => {
    const { bus, deliver } = fakeBus();
    const cache = createRegistryReadCache(bus, 100, 1600);
    for (const name of ['a', 'b', 'c']) cache.set(name, '', answer('x'.repeat(100)), cache.token());
    expect(cache.bytes).toBe(300);
    cache.set('a', '', answer('y'.repeat(50)), cache.token());
    expect(cache.bytes).toBe(250);
    for (const name of ['d', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q']) {
      cache.set(name, '', answer('z'.repeat(100)), cache.token());
    }
    expect(cache.bytes).toBeLessThanOrEqual(1600);
    // 'a' was written again after 'b': 'b' is the least recently used, and went.
    expect(cache.get('b', '')).toBeUndefined();
    expect(cache.get('a', '')).toEqual(answer('y'.repeat(50)));
    expect(cache.get('q', '')).toBeDefined();
    deliver({ topic: REGISTRY_CHANGED, name: 'q' });
    expect(cache.bytes).toBeLessThanOrEqual(1500);
    // An answer larger than a sixteenth of the budget is not kept.
    cache.set('big', '', answer('b'.repeat(200)), cache.token());
    expect(cache.get('big', '')).toBeUndefined();
  });
});
