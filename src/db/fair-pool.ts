import type pg from 'pg';
import { currentTenant } from '../lib/tenant-context.js';
import { createTenantTurns } from '../lib/tenant-turns.js';

type ConnectCallback = (error: Error | undefined, client?: pg.PoolClient, done?: unknown) => void;

/**
 * Makes a pool's checkouts take turns between tenants (src/lib/tenant-turns.ts) instead of pg-pool's first
 * come, first served: with every connection busy, a tenant that queued a hundred queries does not make
 * another tenant's one wait for all of them. Every checkout goes through `connect` (pool.query calls it
 * too), so replacing it on the instance covers drizzle's statements and transactions alike.
 * A checkout that waits longer than `timeoutMs` for its turn fails as pg-pool's own wait does.
 */
export function shareCheckoutsByTenant(pool: pg.Pool, capacity: number, timeoutMs: number) {
  const turns = createTenantTurns(capacity);
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;

  const checkout = (): Promise<pg.PoolClient> =>
    new Promise((resolve, reject) => {
      const tenant = currentTenant() ?? '';
      let timer: NodeJS.Timeout | undefined;
      let started = false;
      const start = () => {
        started = true;
        clearTimeout(timer);
        connect().then(
          (client) => {
            const release = client.release;
            let released = false;
            client.release = (error?: Error | boolean) => {
              if (!released) {
                released = true;
                turns.release();
              }
              return release.call(client, error);
            };
            resolve(client);
          },
          (error: Error) => {
            turns.release();
            reject(error);
          },
        );
      };
      turns.wait(tenant, start);
      // A free place started it at once (every checkout while the pool is not busy): no timer to set.
      if (started) return;
      timer = setTimeout(() => {
        if (turns.cancel(tenant, start)) reject(new Error('timeout exceeded when trying to connect'));
      }, timeoutMs);
      timer.unref();
    });

  // pg-pool's query calls connect with a callback; drizzle's transactions call it for a promise.
  (pool as { connect: unknown }).connect = (callback?: ConnectCallback) => {
    if (!callback) return checkout();
    checkout().then(
      (client) => callback(undefined, client, client.release),
      (error: Error) => callback(error),
    );
    return undefined;
  };
  return { waitingCount: turns.waitingCount };
}
