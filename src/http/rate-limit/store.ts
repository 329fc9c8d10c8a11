/** One counted request: how many the window holds now (this one included) and when the window ends. */
export interface RateLimitHit {
  count: number;
  resetAtMs: number;
}

/**
 * Fixed-window counters. `hit` counts one request under `key` for the window of `windowMs` that `nowMs`
 * falls in, atomically across every instance that shares the store. A local store answers synchronously,
 * so counting costs a request no promise; a shared one answers with a promise.
 */
export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  hit(key: string, windowMs: number, nowMs: number): RateLimitHit | Promise<RateLimitHit>;
  close(): Promise<void>;
}

export const windowStart = (windowMs: number, nowMs: number): number =>
  Math.floor(nowMs / windowMs) * windowMs;

/** This process only: the default, and right for a single instance. */
export function createMemoryStore({ maxKeys = 100_000 } = {}): RateLimitStore {
  const counters = new Map<string, { count: number; resetAtMs: number }>();

  const sweep = (nowMs: number) => {
    for (const [key, counter] of counters) if (counter.resetAtMs <= nowMs) counters.delete(key);
  };

  return {
    kind: 'memory',
    hit: (key, windowMs, nowMs) => {
      const resetAtMs = windowStart(windowMs, nowMs) + windowMs;
      let counter = counters.get(key);
      if (!counter || counter.resetAtMs !== resetAtMs) {
        // Bound memory under a flood of distinct keys (IPs): drop ended windows first.
        if (counters.size >= maxKeys) sweep(nowMs);
        if (counters.size >= maxKeys) counters.clear();
        counter = { count: 0, resetAtMs };
        counters.set(key, counter);
      }
      counter.count += 1;
      return { count: counter.count, resetAtMs };
    },
    close: async () => {
      counters.clear();
    },
  };
}
