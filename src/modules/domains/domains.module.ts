import type { App } from '../../http/route-kit.js';
import { createDomainProof, type DomainProofOptions } from './domain-proof.js';
import { registerDomainRoutes } from './domains.routes.js';
import { createDomainsService, type DomainsServiceDeps } from './domains.service.js';

export interface DomainsModuleDeps extends Omit<DomainsServiceDeps, 'proof'> {
  /** How the proofs are checked: the DNS servers, the file proof's outbound allowance. */
  proof?: DomainProofOptions | undefined;
  /** How often this instance looks for verified domains due a re-check (default every minute). */
  sweepIntervalMs?: number | undefined;
  onError: (error: unknown) => void;
}

/** Verified email domains: claims, proofs, the periodic re-check (docs/domains.md). */
export function createDomainsModule(deps: DomainsModuleDeps) {
  const service = createDomainsService({ ...deps, proof: createDomainProof(deps.proof) });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  return {
    service,
    registerRoutes(app: App) {
      registerDomainRoutes(app, service);
    },
    start() {
      timer = setInterval(() => {
        // One pass at a time: a slow DNS server must not pile passes up.
        running ??= service
          .recheckDue()
          .catch(deps.onError)
          .finally(() => {
            running = undefined;
          });
      }, deps.sweepIntervalMs ?? 60_000);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
