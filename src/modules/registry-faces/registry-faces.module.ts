import type { App } from '../../http/route-kit.js';
import { backfillIntegrity, createCatalogUsers } from '../supply-chain/index.js';
import type { TenancyService } from '../tenancy/index.js';
import { registerPerstackRoutes } from './perstack.routes.js';
import { registerPolicyRoutes } from './policy.routes.js';
import { createPolicyService } from './policy.service.js';
import { registerRegistryRoutes } from './registry.routes.js';
import { createRegistryService } from './registry.service.js';
import { registerRegistryAdminRoutes } from './registry-admin.routes.js';
import type { RegistryServiceDeps } from './registry-context.js';

/**
 * The public registry of Experts (its own face), the same registry in Perstack's wire contract (a face of its
 * own, docs/perstack.md), the organization's publish policy and approvals (management face) and the operator's
 * registry routes.
 */
export function createRegistryModule(
  deps: RegistryServiceDeps & { tenancy: Pick<TenancyService, 'countApprovers'> },
) {
  const service = createRegistryService(deps);
  const policies = createPolicyService({
    database: deps.database,
    clock: deps.clock,
    registry: service,
    countApprovers: (organizationId) => deps.tenancy.countApprovers(organizationId),
  });
  return {
    service,
    policies,
    /** Which Experts' skills use which packages and endpoints: the MCP catalog's pages read it (a port). */
    catalogUsers: createCatalogUsers(deps.database.db),
    /** Before the app serves: fills the integrity digest of versions stored before it existed (integrity.ts). */
    start: () => backfillIntegrity(deps.database.db),
    /** The registry face's routes. */
    registerRoutes(app: App) {
      registerRegistryRoutes(app, service);
    },
    /** The Perstack-compatible face's routes. */
    registerPerstackRoutes(app: App) {
      registerPerstackRoutes(app, service);
    },
    /** The publish policy and approvals, in the management face (docs/registry.md "Publish policies"). */
    registerManagementRoutes(app: App) {
      registerPolicyRoutes(app, policies);
    },
    registerAdminRoutes(app: App) {
      registerRegistryAdminRoutes(app, service);
    },
  };
}
