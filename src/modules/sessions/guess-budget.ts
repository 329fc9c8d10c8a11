import type { RateLimitStore } from '../../http/rate-limit/store.js';
import { createMemoryStore } from '../../http/rate-limit/store.js';

/**
 * One budget of wrong passwords per account (docs/sessions.md, "Login throttling"), drawn on by every route that
 * checks an account's password — sign-in, an invitation link, a password change — and shared by every instance
 * on the rate limits' store (Redis with REDIS_URL). When the shared store fails, this instance's own counts
 * answer instead (the budget is then per instance until it is back), so guessing never goes uncounted.
 */
export function createGuessBudget(shared: RateLimitStore, windowMs: number) {
  const local = createMemoryStore({ maxKeys: 50_000 });
  const key = (email: string) => `guess:${email}`;
  async function either<T>(work: (store: RateLimitStore) => T | Promise<T>): Promise<T> {
    try {
      return await work(shared);
    } catch {
      return work(local);
    }
  }
  return {
    /** Wrong passwords counted for the account in the window. */
    failures: (email: string, nowMs: number) => either((store) => store.peek(key(email), windowMs, nowMs)),
    /** Counts one wrong password. */
    async failed(email: string, nowMs: number): Promise<void> {
      await either((store) => store.hit(key(email), Number.MAX_SAFE_INTEGER, windowMs, nowMs));
    },
    /** Forgets the account's failures (its owner signed in from an address it used before). */
    async reset(email: string): Promise<void> {
      local.reset(key(email));
      await either((store) => store.reset(key(email)));
    },
    /**
     * Counts one attempt before its password is checked, if fewer than `limit` are counted (atomically, so
     * parallel guesses on any instance count too); answers the seconds to wait when the budget is spent.
     */
    async attempt(email: string, limit: number, nowMs: number): Promise<number | undefined> {
      const hit = await either((store) => store.hit(key(email), limit, windowMs, nowMs));
      return hit.allowed ? undefined : Math.max(1, Math.ceil((hit.retryAtMs - nowMs) / 1000));
    },
  };
}

export type GuessBudget = ReturnType<typeof createGuessBudget>;
