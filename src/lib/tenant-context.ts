import { AsyncLocalStorage } from 'node:async_hooks';

// Which tenant (organization, or an anonymous credential) the work running now is for, so that a shared
// resource deep below the routes (the embedded database's one connection) can take turns between tenants
// without every repository passing the tenant along.
const storage = new AsyncLocalStorage<string>();

/** Runs `work`, and everything it starts, as `tenant`'s. */
export const runAsTenant = <T>(tenant: string, work: () => T): T => storage.run(tenant, work);

/** The tenant the current work is for; undefined for the service's own work (start-up, background jobs). */
export const currentTenant = (): string | undefined => storage.getStore();
