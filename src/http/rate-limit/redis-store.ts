import { Redis } from 'ioredis';
import { createCircuitBreaker } from './circuit-breaker.js';
import {
  type CircuitState,
  type RateLimitHit,
  type RateLimitStore,
  settle,
  subWindowIndex,
} from './store.js';

// The memory store's sliding window (store.ts) on one hash per key: field = sub-window index, value =
// "count:lastMs". One script, so concurrent instances never lose a count or admit past the limit. Answers
// { allowed, total, then count and lastMs of each live sub-window, oldest first }.
const HIT_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local index = ARGV[3]
local limit = tonumber(ARGV[4])
local fields = redis.call('HGETALL', key)
local subs = {}
local total = 0
for i = 1, #fields, 2 do
  local value = fields[i + 1]
  local sep = string.find(value, ':', 1, true)
  local count = tonumber(string.sub(value, 1, sep - 1))
  local last = tonumber(string.sub(value, sep + 1))
  if last + window <= now then
    redis.call('HDEL', key, fields[i])
  else
    total = total + count
    subs[#subs + 1] = { fields[i], count, last }
  end
end
local allowed = 0
if total < limit then
  allowed = 1
  total = total + 1
  local found = false
  for _, sub in ipairs(subs) do
    if sub[1] == index then
      sub[2] = sub[2] + 1
      if now > sub[3] then sub[3] = now end
      redis.call('HSET', key, index, sub[2] .. ':' .. string.format('%d', sub[3]))
      found = true
    end
  end
  if not found then
    subs[#subs + 1] = { index, 1, now }
    redis.call('HSET', key, index, '1:' .. string.format('%d', now))
  end
  -- Instances' clocks differ a little: keep the key a while past its window.
  redis.call('PEXPIRE', key, window + 5000)
end
table.sort(subs, function(x, y) return x[3] < y[3] end)
local answer = { allowed, total }
for _, sub in ipairs(subs) do
  answer[#answer + 1] = sub[2]
  answer[#answer + 1] = sub[3]
end
return answer`;

// The count a window holds now, changing nothing.
const PEEK_SCRIPT = `
local fields = redis.call('HGETALL', KEYS[1])
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local total = 0
for i = 1, #fields, 2 do
  local value = fields[i + 1]
  local sep = string.find(value, ':', 1, true)
  if tonumber(string.sub(value, sep + 1)) + window > now then
    total = total + tonumber(string.sub(value, 1, sep - 1))
  end
end
return total`;

export interface RedisStoreOptions {
  url: string;
  /** Key prefix, so several deployments can share one Redis. */
  prefix?: string;
  /** A command that takes longer fails (and the caller fails open) instead of holding the request. */
  commandTimeoutMs?: number;
  onError?: (error: Error) => void;
  /**
   * The circuit breaker (docs/operations.md, "Redis: a circuit breaker"): after `breakerFailures` failed or
   * timed-out commands in a row the store fails at once (callers fail open) for `breakerCooldownMs`, then
   * lets one command probe Redis; its success closes the circuit.
   */
  breakerFailures?: number;
  breakerCooldownMs?: number;
  /** Told when the circuit opens, probes (half-open) and closes again. */
  onCircuitChange?: (state: CircuitState) => void;
}

type HitCommand = (
  key: string,
  nowMs: number,
  windowMs: number,
  index: number,
  limit: number,
) => Promise<number[]>;

/** Limits shared by every instance that points at the same Redis (`REDIS_URL`). */
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
  redis.defineCommand('cadreSlidingHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const hit = (redis as unknown as { cadreSlidingHit: HitCommand }).cadreSlidingHit.bind(redis);
  redis.defineCommand('cadreSlidingPeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
  const peek = (
    redis as unknown as {
      cadreSlidingPeek: (key: string, nowMs: number, windowMs: number) => Promise<number>;
    }
  ).cadreSlidingPeek.bind(redis);
  const breaker = createCircuitBreaker({
    failures: options.breakerFailures ?? 3,
    cooldownMs: options.breakerCooldownMs ?? 5_000,
    ...(options.onCircuitChange ? { onChange: options.onCircuitChange } : {}),
  });

  return {
    kind: 'redis',
    hit: async (key, limit, windowMs, nowMs): Promise<RateLimitHit> => {
      const now = Math.floor(nowMs);
      const reply = (
        await breaker.run(() =>
          hit(`${prefix}sw:${key}`, now, windowMs, subWindowIndex(windowMs, now), limit),
        )
      ).map(Number);
      const subs: Array<{ count: number; lastMs: number }> = [];
      for (let i = 2; i + 1 < reply.length; i += 2) subs.push({ count: reply[i]!, lastMs: reply[i + 1]! });
      return settle(subs, reply[1]!, limit, windowMs, now, reply[0] === 1);
    },
    peek: async (key, windowMs, nowMs) =>
      Number(await breaker.run(() => peek(`${prefix}sw:${key}`, Math.floor(nowMs), windowMs))),
    reset: async (key) => {
      await breaker.run(() => redis.del(`${prefix}sw:${key}`));
    },
    circuit: breaker.state,
    close: async () => {
      redis.disconnect();
    },
  };
}
