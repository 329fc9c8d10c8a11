import { timingSafeEqual } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { Change, ChangeBus } from '../../db/change-bus.js';
import type { Database } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { sha256 } from '../../lib/secrets.js';
import type { ApiKeyPrincipal } from '../auth/index.js';
import type { KeyCacheEvents } from '../metrics/index.js';
import { MEMBERSHIP_CHANGED, memberships } from '../tenancy/index.js';
import { isWellFormedApiKey } from './api-key-secret.js';
import { apiKeys } from './api-keys.tables.js';

type KeyRow = NonNullable<Awaited<ReturnType<typeof loadKey>>>;

/** What a verified key admits, kept per instance: its principal is built once and shared (read-only). */
interface CachedKey {
  digest: string;
  digestBytes: Buffer;
  expiresAt: Date | null;
  revokedAt: Date | null;
  principal: Readonly<ApiKeyPrincipal>;
}

const toCachedKey = (row: KeyRow): CachedKey => ({
  digest: row.digest,
  digestBytes: Buffer.from(row.digest, 'hex'),
  expiresAt: row.expiresAt,
  revokedAt: row.revokedAt,
  principal: Object.freeze({
    kind: 'apiKey',
    apiKeyId: row.id,
    userId: row.userId,
    organizationId: row.organizationId,
    role: row.role,
    grants: row.grants,
  }),
});

export interface ApiKeyAuthenticatorDeps {
  database: Database;
  bus: ChangeBus;
  clock: Clock;
  flushIntervalMs: number;
  maxCacheEntries?: number;
  onError: (error: unknown) => void;
  /** Verifications answered from the cache or the database (metrics). */
  cacheEvents?: KeyCacheEvents;
}

export const API_KEY_CHANGED = 'api-key';

async function loadKey(db: Database['db'], digest: string) {
  const [row] = await db
    .select({
      id: apiKeys.id,
      digest: apiKeys.digest,
      organizationId: apiKeys.organizationId,
      userId: apiKeys.userId,
      grants: apiKeys.grants,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      role: memberships.role,
    })
    .from(apiKeys)
    .innerJoin(
      memberships,
      and(eq(memberships.organizationId, apiKeys.organizationId), eq(memberships.userId, apiKeys.userId)),
    )
    .where(eq(apiKeys.digest, digest))
    .limit(1);
  return row;
}

export type ApiKeyAuthenticator = ReturnType<typeof createApiKeyAuthenticator>;

/**
 * Verifies Bearer API keys. Verified keys are cached per instance so authentication costs no query on the
 * hot path; every revocation or role change is published on the change bus and evicts the entry on every
 * instance. `lastUsedAt` is collected in memory and written in one batched UPDATE per interval.
 */
export function createApiKeyAuthenticator(deps: ApiKeyAuthenticatorDeps) {
  const { db } = deps.database;
  const cache = new LRUCache<string, CachedKey>({ max: deps.maxCacheEntries ?? 10_000 });
  // Bumped on every invalidation: a lookup that raced one must not cache what it read.
  let generation = 0;
  // Concurrent misses for one key (a client's burst on a cold cache) share one read. Every invalidation
  // forgets the reads in flight: a request after it never joins a read that began before it.
  let loading = new Map<string, ReturnType<typeof loadKey>>();
  const lastUsed = new Map<string, Date>();
  let timer: NodeJS.Timeout | undefined;

  const evict = (change: Change) => {
    generation++;
    loading = new Map();
    const hits = [...cache.entries()].filter(([, entry]) =>
      change.topic === API_KEY_CHANGED
        ? entry.principal.apiKeyId === change.id
        : entry.principal.userId === change.userId &&
          entry.principal.organizationId === change.organizationId,
    );
    for (const [digest] of hits) cache.delete(digest);
  };
  deps.bus.subscribe({
    onChange: (change) => {
      if (change.topic === API_KEY_CHANGED || change.topic === MEMBERSHIP_CHANGED) evict(change);
    },
    reset: () => {
      generation++;
      loading = new Map();
      cache.clear();
    },
  });

  const load = (digest: string) => {
    const inFlight = loading.get(digest);
    if (inFlight) return inFlight;
    const reads = loading;
    const read = loadKey(db, digest).finally(() => reads.delete(digest));
    reads.set(digest, read);
    return read;
  };

  /**
   * The key's principal, null when it is not a live key, or `expired` for a key that was valid until its
   * expiry (its holder is told so: only the key's holder can ask). Answers synchronously from the cache (the hot
   * path: no promise), with a promise when the key has to be read.
   */
  function authenticate(
    token: string,
  ): ApiKeyPrincipal | null | 'expired' | Promise<ApiKeyPrincipal | null | 'expired'> {
    if (!isWellFormedApiKey(token)) return null;
    const digest = sha256(token);
    const hex = digest.toString('hex');
    const cached = deps.bus.isLive() ? cache.get(hex) : undefined;
    if (cached) {
      deps.cacheEvents?.hit();
      return admit(cached, digest);
    }
    deps.cacheEvents?.miss();
    const seen = generation;
    return load(hex).then((row) => {
      if (!row) return null;
      const entry = toCachedKey(row);
      if (seen === generation && deps.bus.isLive()) cache.set(entry.digest, entry);
      return admit(entry, digest);
    });
  }

  function admit(entry: CachedKey, digest: Buffer): ApiKeyPrincipal | null | 'expired' {
    // The lookup is by digest; comparing it again in constant time keeps the final decision timing-flat.
    if (!timingSafeEqual(entry.digestBytes, digest)) return null;
    const now = deps.clock.now();
    if (entry.revokedAt) return null;
    if (entry.expiresAt && entry.expiresAt <= now) return 'expired';
    lastUsed.set(entry.principal.apiKeyId, now);
    return entry.principal;
  }

  // One flush at a time; a caller arriving mid-flush waits for it, so "flushed" means written.
  let flushing: Promise<void> = Promise.resolve();
  function flushLastUsed(): Promise<void> {
    flushing = flushing.then(writeLastUsed);
    return flushing;
  }

  async function writeLastUsed(): Promise<void> {
    if (lastUsed.size === 0) return;
    const batch = [...lastUsed];
    lastUsed.clear();
    const values = sql.join(
      batch.map(([id, at]) => sql`(${id}, ${at.toISOString()}::timestamptz)`),
      sql`, `,
    );
    try {
      await db.execute(sql`
        UPDATE api_keys SET last_used_at = v.at
        FROM (VALUES ${values}) AS v(id, at)
        WHERE api_keys.id = v.id AND (api_keys.last_used_at IS NULL OR api_keys.last_used_at < v.at)`);
    } catch (error) {
      // Keep the newest timestamps for the next attempt rather than lose them.
      for (const [id, at] of batch) if (!lastUsed.has(id)) lastUsed.set(id, at);
      deps.onError(error);
    }
  }

  return {
    authenticate,
    flushLastUsed,
    /** Drop a key from this instance's cache at once (the bus tells the others). */
    forget: (id: string) => evict({ topic: API_KEY_CHANGED, id }),
    start() {
      timer = setInterval(() => void flushLastUsed(), deps.flushIntervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await flushLastUsed();
    },
  };
}
