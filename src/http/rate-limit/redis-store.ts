import { Redis } from 'ioredis';
import { type RateLimitStore, windowStart } from './store.js';

// INCR and PEXPIRE in one script: atomic, so concurrent instances never lose a count or leave a key without
// an expiry.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

export interface RedisStoreOptions {
  url: string;
  /** Key prefix, so several deployments can share one Redis. */
  prefix?: string;
  /** A command that takes longer fails (and the caller fails open) instead of holding the request. */
  commandTimeoutMs?: number;
  onError?: (error: Error) => void;
}

/** Counters shared by every instance that points at the same Redis (`REDIS_URL`). */
export function createRedisStore(options: RedisStoreOptions): RateLimitStore {
  const prefix = options.prefix ?? 'cadre:rl:';
  const redis = new Redis(options.url, {
    // While Redis is unreachable, commands fail at once rather than queue behind the reconnection.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Always listened to: an unlistened 'error' event would be printed (or crash) on every reconnection.
  redis.on('error', (error: Error) => options.onError?.(error));
  redis.defineCommand('cadreHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const hit = (redis as unknown as { cadreHit(key: string, ttlMs: number): Promise<number> }).cadreHit.bind(
    redis,
  );

  return {
    kind: 'redis',
    hit: async (key, windowMs, nowMs) => {
      const start = windowStart(windowMs, nowMs);
      // Instances' clocks differ a little: keep the key a while past its window.
      const count = await hit(`${prefix}${key}:${start}`, windowMs + 5_000);
      return { count: Number(count), resetAtMs: start + windowMs };
    },
    close: async () => {
      redis.disconnect();
    },
  };
}
