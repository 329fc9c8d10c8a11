import { AsyncLocalStorage } from 'node:async_hooks';

// Which tenant (organization, or an anonymous credential) the work running now is for, so that a shared
// resource deep below the routes (the database's connections) can take turns between tenants without
// every repository passing the tenant along.
//
// Attribution runs only while tenants compete for the database: on Node 20 an AsyncLocalStorage in use
// costs every promise of the process a little (async hooks), about a fifth of the throughput of a cached
// registry read (bench/README.md, "Fairness between tenants"), and turns need no owner when nobody waits.
const storage = new AsyncLocalStorage<string>();
let attributing = false;

/** From now on, work run by `runAsTenant` knows its tenant. */
export function startAttributing(): void {
  attributing = true;
}

/** Stops attributing work and takes the async hooks off the process. */
export function stopAttributing(): void {
  if (!attributing) return;
  attributing = false;
  storage.disable();
}

export const isAttributing = (): boolean => attributing;

/** Runs `work`, and everything it starts, as `tenant`'s (while attributing; else simply runs it). */
export const runAsTenant = <T>(tenant: string, work: () => T): T =>
  attributing ? storage.run(tenant, work) : work();

/** The tenant the current work is for; undefined for the service's own work, or when not attributing. */
export const currentTenant = (): string | undefined => (attributing ? storage.getStore() : undefined);
