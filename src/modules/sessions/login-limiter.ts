import { addressKey } from '../../http/client-address.js';
import type { Clock } from '../../lib/clock.js';

export interface LoginLimits {
  /** Failed attempts allowed per account (email) from one client address in one window. */
  perAccount: number;
  /**
   * Failed attempts allowed per account from all addresses together in one window, before addresses that
   * never signed in to it are slowed down too (a guess spread over many addresses). Addresses the account
   * signed in from before are not: the real user keeps signing in.
   */
  perAccountAllAddresses: number;
  /** Attempts (failed or not) allowed per client IP in one window. */
  perIp: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perAccount: 10,
  perAccountAllAddresses: 100,
  perIp: 60,
  windowMs: 15 * 60_000,
};

/** How long an address stays known for an account after a successful sign-in from it. */
const KNOWN_ADDRESS_MS = 30 * 24 * 3_600_000;
const KNOWN_ADDRESSES_PER_ACCOUNT = 10;

interface Window {
  count: number;
  resetAt: number;
}

/**
 * A small in-memory fixed-window limiter for logins only (per instance). The general rate limiter,
 * shared through Redis, is built separately; this one only has to slow password guessing down without
 * letting a stranger lock the real user out (docs/sessions.md, "Login throttling"): failures count per
 * account *and address*, so ten wrong passwords from one address throttle that address only; a guess
 * spread over many addresses throttles the addresses the account never signed in from, never the ones it
 * did.
 */
export function createLoginLimiter(limits: LoginLimits, clock: Clock, maxEntries = 50_000) {
  const windows = new Map<string, Window>();
  /** Per account: the addresses it signed in from, and until when they count as known. */
  const known = new Map<string, Map<string, number>>();

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

  const isKnown = (email: string, ip: string, now: number) => (known.get(email)?.get(ip) ?? 0) > now;
  const wait = (window: Window, now: number) => Math.max(1, Math.ceil((window.resetAt - now) / 1000));

  return {
    /** Counts this attempt against the address (an IPv6 client by its /64, addressKey); answers the seconds to wait when a limit is already reached. */
    admit(clientIp: string, email: string): number | undefined {
      const ip = addressKey(clientIp);
      const now = clock.now().getTime();
      const byIp = current(`ip:${ip}`, now);
      if (byIp.count >= limits.perIp) return wait(byIp, now);
      byIp.count++;
      const byPair = current(`pair:${email}\n${ip}`, now);
      if (byPair.count >= limits.perAccount) return wait(byPair, now);
      const byAccount = current(`account:${email}`, now);
      if (byAccount.count >= limits.perAccountAllAddresses && !isKnown(email, ip, now))
        return wait(byAccount, now);
      return undefined;
    },
    failed(email: string, clientIp: string) {
      const ip = addressKey(clientIp);
      const now = clock.now().getTime();
      current(`pair:${email}\n${ip}`, now).count++;
      current(`account:${email}`, now).count++;
    },
    succeeded(email: string, clientIp: string) {
      const ip = addressKey(clientIp);
      const now = clock.now().getTime();
      windows.delete(`pair:${email}\n${ip}`);
      // A sign-in from an address the account used before resets the account-wide count too.
      if (isKnown(email, ip, now)) windows.delete(`account:${email}`);
      let addresses = known.get(email);
      if (!addresses) {
        if (known.size >= maxEntries) known.delete(known.keys().next().value!);
        addresses = new Map();
        known.set(email, addresses);
      }
      addresses.delete(ip);
      addresses.set(ip, now + KNOWN_ADDRESS_MS);
      if (addresses.size > KNOWN_ADDRESSES_PER_ACCOUNT) addresses.delete(addresses.keys().next().value!);
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
