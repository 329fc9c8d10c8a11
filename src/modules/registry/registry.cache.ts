import { LRUCache } from 'lru-cache';
import type { ChangeBus } from '../../db/change-bus.js';
import type { CacheEvents } from '../metrics/index.js';

export const REGISTRY_CHANGED = 'registry-name';

/**
 * A serialized answer, ready to send: the body exactly as sent (UTF-8 bytes, so a cache hit costs no
 * encoding or length scan) and its ETag.
 */
export interface CachedAnswer {
  body: Buffer;
  etag: string;
}

export interface RegistryReadCache {
  get(name: string, ref: string): CachedAnswer | undefined;
  /** Stores what a read found, unless the name changed since `token` was taken (see `token`). */
  set(name: string, ref: string, answer: CachedAnswer, token: number): void;
  /** Taken before reading the database; a change seen in between makes `set` a no-op. */
  token(): number;
  /** List answers by normalized query; any change to any name drops them all. */
  getList(query: string): CachedAnswer | undefined;
  setList(query: string, answer: CachedAnswer, token: number): void;
  /** Drops every entry of a name, and every list, on this instance (the bus tells the others). */
  invalidate(name: string): void;
  readonly size: number;
  /** Bytes of the by-key answers held. */
  readonly bytes: number;
}

/**
 * Answers of GET /registry/experts/:key per instance, least recently used evicted first. Every write to a
 * name publishes REGISTRY_CHANGED in its transaction; each instance (the writer too, and the writer also
 * synchronously after commit) drops the name's entries. A read that raced a change does not store what it
 * read (generation check), and nothing is served while the bus is down, because invalidations could be
 * lost then. Bounded by entries and by bytes (an answer can hold a 20 KB instruction); `maxEntries` 0
 * disables the cache. Lists get a quarter of the byte budget.
 */
export function createRegistryReadCache(
  bus: Pick<ChangeBus, 'subscribe' | 'isLive'>,
  maxEntries: number,
  maxBytes = 64 * 1024 * 1024,
  events?: CacheEvents,
): RegistryReadCache {
  // The keys of each name's answers, so a change drops exactly those; kept in step by `dispose`.
  const keysOf = new Map<string, Set<string>>();
  const keyOf = (name: string, ref: string) => `${name}\0${ref}`;
  // lru-cache wants a positive size: an answer weighs its bytes + 1 (`bytes` is the total less the count).
  const weight = (answer: CachedAnswer) => answer.body.length + 1;
  const answers = new LRUCache<string, CachedAnswer>({
    max: Math.max(1, maxEntries),
    maxSize: maxBytes,
    sizeCalculation: weight,
    dispose: (_answer, key, reason) => {
      if (reason === 'set') return; // replaced: the key stays
      if (reason === 'evict') events?.evicted(1);
      const name = key.slice(0, key.indexOf('\0'));
      const keys = keysOf.get(name);
      keys?.delete(key);
      if (keys?.size === 0) keysOf.delete(name);
    },
  });
  const lists = new LRUCache<string, CachedAnswer>({
    max: Math.max(1, Math.min(maxEntries, 1_000)),
    maxSize: maxBytes / 4,
    sizeCalculation: weight,
  });
  let generation = 0;

  const invalidate = (name: string) => {
    generation++;
    lists.clear();
    const keys = keysOf.get(name);
    if (keys) for (const key of [...keys]) answers.delete(key);
  };
  bus.subscribe({
    onChange: (change) => {
      if (change.topic !== REGISTRY_CHANGED || typeof change.name !== 'string') return;
      events?.invalidated();
      invalidate(change.name);
    },
    reset: () => {
      generation++;
      lists.clear();
      answers.clear();
    },
  });

  const counted = (found: CachedAnswer | undefined) => {
    if (found) events?.hit();
    else events?.miss();
    return found;
  };

  return {
    get(name, ref) {
      if (maxEntries === 0 || !bus.isLive()) return undefined;
      return counted(answers.get(keyOf(name, ref)));
    },
    set(name, ref, answer, token) {
      if (maxEntries === 0 || token !== generation || !bus.isLive()) return;
      if (answer.body.length > maxBytes / 16) return; // one answer never crowds out the rest
      const key = keyOf(name, ref);
      answers.set(key, answer);
      let keys = keysOf.get(name);
      if (!keys) {
        keys = new Set();
        keysOf.set(name, keys);
      }
      keys.add(key);
    },
    getList(query) {
      if (maxEntries === 0 || !bus.isLive()) return undefined;
      return counted(lists.get(query));
    },
    setList(query, answer, token) {
      if (maxEntries === 0 || token !== generation || !bus.isLive()) return;
      lists.set(query, answer);
    },
    token: () => generation,
    invalidate,
    get size() {
      return answers.size;
    },
    get bytes() {
      return answers.calculatedSize - answers.size;
    },
  };
}
