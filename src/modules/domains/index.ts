// The domains module's public entry: what other modules (single sign-on's routing) may use.
export type { DomainProofOptions } from './domain-proof.js';
export { createDomainsModule, type DomainsModuleDeps } from './domains.module.js';
export type { DomainsService } from './domains.service.js';
