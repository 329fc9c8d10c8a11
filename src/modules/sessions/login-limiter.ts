import type { Clock } from '../../lib/clock.js';

export interface LoginLimits {
  /** Failed attempts allowed per account (email) in one window. */
  perAccount: number;
  /** Attempts (failed or not) allowed per client IP in one window. */
  perIp: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perAccount: 10, perIp: 60, windowMs: 15 * 60_000 };

interface Window {
  count: number;
  resetAt: number;
}

/**
 * A small in-memory fixed-window limiter for logins only (per instance). The general rate limiter,
 * shared through Redis, is built separately; this one only has to slow password guessing down.
 */
export function createLoginLimiter(limits: LoginLimits, clock: Clock, maxEntries = 50_000) {
  const windows = new Map<string, Window>();

  const current = (key: string, now: number): Window => {
    let window = windows.get(key);
    if (!window || window.resetAt <= now) {
      if (windows.size >= maxEntries) sweep(now);
      window = { count: 0, resetAt: now + limits.windowMs };
      windows.set(key, window);
    }
    return window;
  };

  function sweep(now: number) {
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
    // Still full of live windows: drop the oldest rather than grow without bound.
    while (windows.size >= maxEntries) {
      const oldest = windows.keys().next().value;
      if (oldest === undefined) break;
      windows.delete(oldest);
    }
  }

  return {
    /** Counts this attempt against the IP; answers the seconds to wait when a limit is already reached. */
    admit(ip: string, email: string): number | undefined {
      const now = clock.now().getTime();
      const byIp = current(`ip:${ip}`, now);
      const byAccount = current(`account:${email}`, now);
      if (byIp.count >= limits.perIp) return Math.ceil((byIp.resetAt - now) / 1000);
      byIp.count++;
      if (byAccount.count >= limits.perAccount) return Math.ceil((byAccount.resetAt - now) / 1000);
      return undefined;
    },
    failed(email: string) {
      current(`account:${email}`, clock.now().getTime()).count++;
    },
    succeeded(email: string) {
      windows.delete(`account:${email}`);
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
