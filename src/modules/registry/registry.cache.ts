import type { ChangeBus } from '../../db/change-bus.js';
import type { CacheEvents } from '../metrics/metrics.js';

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
 * Answers of GET /registry/experts/:key per instance, grouped by Expert name. Every write to a name
 * publishes REGISTRY_CHANGED in its transaction; each instance (the writer too, and the writer also
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
  const byName = new Map<string, Map<string, CachedAnswer>>();
  const lists = new Map<string, CachedAnswer>();
  const maxLists = Math.min(maxEntries, 1_000);
  let size = 0;
  let bytes = 0;
  let listBytes = 0;
  let generation = 0;

  const dropName = (name: string, entries: Map<string, CachedAnswer>, evicted = false) => {
    if (evicted) events?.evicted(entries.size);
    size -= entries.size;
    for (const entry of entries.values()) bytes -= entry.body.length;
    byName.delete(name);
  };
  const clearLists = () => {
    lists.clear();
    listBytes = 0;
  };
  const invalidate = (name: string) => {
    generation++;
    clearLists();
    const entries = byName.get(name);
    if (entries) dropName(name, entries);
  };
  bus.subscribe({
    onChange: (change) => {
      if (change.topic !== REGISTRY_CHANGED || typeof change.name !== 'string') return;
      events?.invalidated();
      invalidate(change.name);
    },
    reset: () => {
      generation++;
      clearLists();
      byName.clear();
      size = 0;
      bytes = 0;
    },
  });

  return {
    get(name, ref) {
      if (maxEntries === 0 || !bus.isLive()) return undefined;
      const found = byName.get(name)?.get(ref);
      if (found) events?.hit();
      else events?.miss();
      return found;
    },
    set(name, ref, answer, token) {
      if (maxEntries === 0 || token !== generation || !bus.isLive()) return;
      if (answer.body.length > maxBytes / 16) return; // one answer never crowds out the rest
      // Evict the oldest names (insertion order) while full: whole names, so `invalidate` stays exact.
      for (const [oldest, oldEntries] of byName) {
        if (size < maxEntries && bytes + answer.body.length <= maxBytes) break;
        if (oldest !== name) dropName(oldest, oldEntries, true);
      }
      let entries = byName.get(name);
      if (!entries) {
        entries = new Map();
        byName.set(name, entries);
      }
      const previous = entries.get(ref);
      if (previous) bytes -= previous.body.length;
      else size++;
      bytes += answer.body.length;
      entries.set(ref, answer);
    },
    getList(query) {
      if (maxEntries === 0 || !bus.isLive()) return undefined;
      const found = lists.get(query);
      if (found) events?.hit();
      else events?.miss();
      return found;
    },
    setList(query, answer, token) {
      if (maxEntries === 0 || token !== generation || !bus.isLive()) return;
      if (lists.size >= maxLists || listBytes + answer.body.length > maxBytes / 4) clearLists();
      listBytes += answer.body.length;
      lists.set(query, answer);
    },
    token: () => generation,
    invalidate,
    get size() {
      return size;
    },
    get bytes() {
      return bytes;
    },
  };
}
