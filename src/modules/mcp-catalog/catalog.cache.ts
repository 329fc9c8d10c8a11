import { LRUCache } from 'lru-cache';
import type { ChangeBus } from '../../db/change-bus.js';
import type { CatalogAccess } from './mcp-catalog.tables.js';

/** The change-bus topic of every write to a catalog (its access, its link, a version or a status). */
export const MCP_CATALOG_CHANGED = 'mcp-catalog';

/** Who may read a catalog: what the gate of every read checks before anything is served. */
export interface CatalogGate {
  access: CatalogAccess;
  linkSecretHash: string | null;
}

/**
 * A catalog's read answers and access settings, per instance (docs/mcp-registry.md, "Answers and their
 * cache"). Every write to a catalog publishes MCP_CATALOG_CHANGED with its organization in the write's
 * transaction; each instance drops that organization's gate and answers (the writer synchronously after
 * commit). A read that raced a change does not store what it read (the generation taken before reading),
 * and nothing is served while the bus is down, since invalidations could be lost then.
 *
 * The gate (access and link) is checked on every request before an answer is looked up, and an answer's
 * key holds the access mode it was stored under: an answer stored while a catalog was public is never the
 * one served once it is private. Bounded by entries and bytes; `maxEntries` 0 disables it.
 */
export function createCatalogCache(
  bus: Pick<ChangeBus, 'subscribe' | 'isLive'>,
  maxEntries: number,
  maxBytes = 32 * 1024 * 1024,
) {
  const enabled = () => maxEntries > 0 && bus.isLive();
  const gates = new Map<string, CatalogGate>();
  const linkOwners = new Map<string, string>();
  // The answer keys of each organization, so a change drops exactly those; kept in step by `dispose`.
  const keysOf = new Map<string, Set<string>>();
  const answers = new LRUCache<string, Buffer>({
    max: Math.max(1, maxEntries),
    maxSize: maxBytes,
    sizeCalculation: (body) => body.length + 1,
    dispose: (_body, key, reason) => {
      if (reason === 'set') return;
      const organizationId = key.slice(0, key.indexOf('\0'));
      const keys = keysOf.get(organizationId);
      keys?.delete(key);
      if (keys?.size === 0) keysOf.delete(organizationId);
    },
  });
  let generation = 0;

  const invalidate = (organizationId: string) => {
    generation++;
    const gate = gates.get(organizationId);
    if (gate?.linkSecretHash) linkOwners.delete(gate.linkSecretHash);
    gates.delete(organizationId);
    const keys = keysOf.get(organizationId);
    if (keys) for (const key of [...keys]) answers.delete(key);
  };
  bus.subscribe({
    onChange: (change) => {
      if (change.topic === MCP_CATALOG_CHANGED && typeof change.organizationId === 'string')
        invalidate(change.organizationId);
    },
    reset: () => {
      generation++;
      gates.clear();
      linkOwners.clear();
      answers.clear();
    },
  });

  const answerKey = (organizationId: string, access: CatalogAccess, what: string) =>
    `${organizationId}\0${access}\0${what}`;

  return {
    /** Taken before reading the database; a change seen in between makes the `set…` calls no-ops. */
    token: () => generation,
    gate: (organizationId: string) => (enabled() ? gates.get(organizationId) : undefined),
    /** The organization whose catalog link has this hash, when its gate is held here. */
    linkOwner: (linkSecretHash: string) => (enabled() ? linkOwners.get(linkSecretHash) : undefined),
    setGate(organizationId: string, gate: CatalogGate, token: number) {
      if (!enabled() || token !== generation) return;
      if (gates.size >= maxEntries) {
        // Settings are a few bytes each: past the bound, start over rather than track recency.
        gates.clear();
        linkOwners.clear();
      }
      gates.set(organizationId, gate);
      if (gate.linkSecretHash) linkOwners.set(gate.linkSecretHash, organizationId);
    },
    answer: (organizationId: string, access: CatalogAccess, what: string) =>
      enabled() ? answers.get(answerKey(organizationId, access, what)) : undefined,
    setAnswer(organizationId: string, access: CatalogAccess, what: string, body: Buffer, token: number) {
      if (!enabled() || token !== generation || body.length > maxBytes / 16) return;
      const key = answerKey(organizationId, access, what);
      answers.set(key, body);
      let keys = keysOf.get(organizationId);
      if (!keys) {
        keys = new Set();
        keysOf.set(organizationId, keys);
      }
      keys.add(key);
    },
    /** Drops an organization's gate and answers on this instance (the bus tells the others). */
    invalidate,
  };
}
