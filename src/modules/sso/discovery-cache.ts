import type { AuthorizationServer } from 'oauth4webapi';
import type { Clock } from '../../lib/clock.js';

/** How long a provider's discovery document is kept before it is read again (docs/sso.md, "Network"). */
const DISCOVERY_TTL_MS = 15 * 60_000;
/** Issuers kept at most: past it the oldest goes (a bound, not a working set: one per organization's provider). */
const MAX_ISSUERS = 1_000;

export interface DiscoveryCacheDeps {
  /** Reads the document (through the outbound guard); failures are thrown and never kept. */
  discover(issuer: string): Promise<AuthorizationServer>;
  clock: Clock;
}

export type DiscoveryCache = ReturnType<typeof createDiscoveryCache>;

/**
 * The providers' discovery documents, kept per issuer so that sign-in starts and callbacks do not each ask
 * the provider again. Concurrent reads of one issuer share one request. The owner saving the provider reads it
 * afresh (`refresh`), and removing it forgets it; another instance's copy expires within the TTL.
 */
export function createDiscoveryCache(deps: DiscoveryCacheDeps) {
  const kept = new Map<string, { expiresAtMs: number; document: Promise<AuthorizationServer> }>();

  function read(issuer: string): Promise<AuthorizationServer> {
    const document = deps.discover(issuer);
    if (kept.size >= MAX_ISSUERS) kept.delete(kept.keys().next().value!);
    kept.set(issuer, { expiresAtMs: deps.clock.now().getTime() + DISCOVERY_TTL_MS, document });
    // A failure is not kept: the next sign-in asks again.
    document.catch(() => {
      if (kept.get(issuer)?.document === document) kept.delete(issuer);
    });
    return document;
  }

  return {
    discover(issuer: string): Promise<AuthorizationServer> {
      const entry = kept.get(issuer);
      if (entry && entry.expiresAtMs > deps.clock.now().getTime()) return entry.document;
      return read(issuer);
    },
    /** Reads the document now and keeps this answer (the owner registered or changed the provider). */
    refresh: read,
    forget(issuer: string): void {
      kept.delete(issuer);
    },
  };
}
