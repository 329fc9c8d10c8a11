/**
 * One request offered to a limit. Admitted requests are counted; refused ones are not (a client that keeps
 * retrying past its limit still gets its limit's worth as the window slides, not nothing).
 */
export interface RateLimitHit {
  /** Whether the request fits the limit (and was counted). */
  allowed: boolean;
  /** Requests the window holds now, this one included when admitted. */
  count: number;
  /** When the oldest request still counted leaves the window: the remaining budget grows then. */
  resetAtMs: number;
  /** When one more request would fit: `nowMs` while the window holds fewer than the limit. */
  retryAtMs: number;
}

/**
 * Sliding-window limits (docs/operations.md "Rate limits"). `hit` offers one request under `key` to a limit
 * of `limit` requests in any window of `windowMs`, atomically across every instance that shares the store. A
 * local store answers synchronously, so counting costs a request no promise; a shared one answers with a
 * promise.
 */
/** A shared store's circuit breaker: `open` fails every call at once, `half_open` lets one probe through. */
export type CircuitState = 'closed' | 'open' | 'half_open';

export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  /** The circuit breaker's state, for a store that has one (Redis). */
  circuit?(): CircuitState;
  hit(key: string, limit: number, windowMs: number, nowMs: number): RateLimitHit | Promise<RateLimitHit>;
  /** How many requests the window under `key` holds now, counting nothing (the login throttle's look). */
  peek(key: string, windowMs: number, nowMs: number): number | Promise<number>;
  /** Forgets everything counted under `key` (a sign-in from a known address clears its account's failures). */
  reset(key: string): void | Promise<void>;
  close(): Promise<void>;
}

/**
 * The window is kept as this many sub-windows: requests of one sub-window are counted together and leave the
 * window together, `windowMs` after the last of them. So every request counts for at least `windowMs` (no
 * window of that length ever admits more than the limit) and at most `windowMs / SUB_WINDOWS` longer.
 */
export const SUB_WINDOWS = 20;

/** Which sub-window `nowMs` falls in. */
export const subWindowIndex = (windowMs: number, nowMs: number): number =>
  Math.floor((nowMs * SUB_WINDOWS) / windowMs);

interface SubWindow {
  index: number;
  count: number;
  /** The latest request of this sub-window: it leaves the window at lastMs + windowMs. */
  lastMs: number;
}

interface Counter {
  windowMs: number;
  total: number;
  /** Oldest first; at most SUB_WINDOWS + 1 (older ones have all left the window). */
  subWindows: SubWindow[];
}

/** The answer for a window holding `total` admitted requests in `subWindows` (oldest first). */
export function settle(
  subWindows: ReadonlyArray<{ count: number; lastMs: number }>,
  total: number,
  limit: number,
  windowMs: number,
  nowMs: number,
  allowed: boolean,
): RateLimitHit {
  const resetAtMs = (subWindows[0]?.lastMs ?? nowMs) + windowMs;
  let retryAtMs = nowMs;
  if (total >= limit) {
    let left = total;
    for (const sub of subWindows) {
      left -= sub.count;
      retryAtMs = sub.lastMs + windowMs;
      if (left < limit) break;
    }
  }
  return { allowed, count: total, resetAtMs, retryAtMs };
}

/** This process only: the default, and right for a single instance. */
export function createMemoryStore({ maxKeys = 100_000 } = {}): RateLimitStore {
  const counters = new Map<string, Counter>();

  const sweep = (nowMs: number) => {
    for (const [key, counter] of counters) {
      const newest = counter.subWindows.at(-1);
      if (!newest || newest.lastMs + counter.windowMs <= nowMs) counters.delete(key);
    }
  };

  return {
    kind: 'memory',
    hit: (key, limit, windowMs, nowMs) => {
      let counter = counters.get(key);
      if (!counter) {
        // Bound memory under a flood of distinct keys (IPs): drop idle keys first.
        if (counters.size >= maxKeys) sweep(nowMs);
        if (counters.size >= maxKeys) counters.clear();
        counter = { windowMs, total: 0, subWindows: [] };
        counters.set(key, counter);
      }
      const subs = counter.subWindows;
      while (subs.length > 0 && subs[0]!.lastMs + windowMs <= nowMs) counter.total -= subs.shift()!.count;
      const allowed = counter.total < limit;
      if (allowed) {
        const index = subWindowIndex(windowMs, nowMs);
        const newest = subs.at(-1);
        // A clock that stepped back counts into the newest sub-window: later, never earlier, so still safe.
        if (newest && newest.index >= index) {
          newest.count += 1;
          newest.lastMs = Math.max(newest.lastMs, nowMs);
        } else {
          subs.push({ index, count: 1, lastMs: nowMs });
        }
        counter.total += 1;
      }
      return settle(subs, counter.total, limit, windowMs, nowMs, allowed);
    },
    peek: (key, windowMs, nowMs) => {
      const subs = counters.get(key)?.subWindows ?? [];
      return subs.reduce((total, sub) => (sub.lastMs + windowMs > nowMs ? total + sub.count : total), 0);
    },
    reset: (key) => {
      counters.delete(key);
    },
    close: async () => {
      counters.clear();
    },
  };
}
