import { addressKey } from '../../http/client-address.js';
import type { Clock } from '../../lib/clock.js';
import type { GuessBudget } from './guess-budget.js';

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
 * The login throttle. Per address, and per account and address: in memory, per instance. Per account from all
 * addresses: the account's wrong passwords in `budget`, shared by every route that checks a password (an
 * invitation link too) and by every instance on Redis. It only has to slow password guessing down without
 * letting a stranger lock the real user out (docs/sessions.md, "Login throttling"): failures count per
 * account *and address*, so ten wrong passwords from one address throttle that address only; a guess
 * spread over many addresses throttles the addresses the account never signed in from, never the ones it
 * did.
 */
export function createLoginLimiter(
  limits: LoginLimits,
  clock: Clock,
  budget: GuessBudget,
  maxEntries = 50_000,
) {
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
    async admit(clientIp: string, email: string): Promise<number | undefined> {
      const ip = addressKey(clientIp);
      const now = clock.now().getTime();
      const byIp = current(`ip:${ip}`, now);
      if (byIp.count >= limits.perIp) return wait(byIp, now);
      byIp.count++;
      const byPair = current(`pair:${email}\n${ip}`, now);
      if (byPair.count >= limits.perAccount) return wait(byPair, now);
      if (isKnown(email, ip, now)) return undefined;
      // Past the account-wide budget the wait is the window's length: its oldest failures leave it by then.
      const failures = await budget.failures(email, now);
      if (failures >= limits.perAccountAllAddresses) return Math.ceil(limits.windowMs / 1000);
      return undefined;
    },
    async failed(email: string, clientIp: string) {
      const ip = addressKey(clientIp);
      const now = clock.now().getTime();
      current(`pair:${email}\n${ip}`, now).count++;
      await budget.failed(email, now);
    },
    async succeeded(email: string, clientIp: string) {
      const ip = addressKey(clientIp);
      const now = clock.now().getTime();
      windows.delete(`pair:${email}\n${ip}`);
      // A sign-in from an address the account used before clears the account-wide failures too.
      if (isKnown(email, ip, now)) await budget.reset(email);
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
