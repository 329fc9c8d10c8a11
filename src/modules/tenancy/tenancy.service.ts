import { createAccountFor } from './accounts.js';
import { createMembershipsService } from './memberships.service.js';
import { createOrganizationsService } from './organizations.service.js';
import { createProjectsService } from './projects.service.js';
import type { TenancyServiceDeps } from './tenancy.deps.js';
import { createUsersService } from './users.service.js';

export type TenancyService = ReturnType<typeof createTenancyService>;

/**
 * Organizations, users, memberships, projects, environments and agents: what the admin API manages. One
 * service to the rest of Cadre, made of a part per concern (each in its own file, with the deps it uses).
 */
export function createTenancyService(deps: TenancyServiceDeps) {
  const accountFor = createAccountFor(deps);
  const organizations = createOrganizationsService({ ...deps, accountFor });
  return {
    ...organizations,
    ...createMembershipsService({ ...deps, accountFor, organizations }),
    ...createProjectsService({ ...deps, organizations }),
    ...createUsersService(deps),
  };
}
