import type { App } from '../../http/route-kit.js';
import { registerAccountRoutes } from './account.routes.js';
import { type AccountServiceDeps, createAccountService } from './account.service.js';
import { registerOrganizationRoutes } from './organization.routes.js';
import { createOrganizationService, type OrganizationServiceDeps } from './organization.service.js';
import { registerProjectRoutes } from './projects.routes.js';
import { createProjectsService, type ProjectsServiceDeps } from './projects.service.js';

export type OrganizationModuleDeps = OrganizationServiceDeps &
  Omit<ProjectsServiceDeps, 'database'> &
  Pick<AccountServiceDeps, 'sessions'>;

/**
 * The caller and its own organization in the management API: `/v1/me` and account settings, members,
 * projects with their environments and agents (read and managed), integrations (read).
 */
export function createOrganizationModule(deps: OrganizationModuleDeps) {
  const service = createOrganizationService(deps);
  const projects = createProjectsService(deps);
  const account = createAccountService({
    database: deps.database,
    clock: deps.clock,
    sessions: deps.sessions,
    ownOrganization: service.ownOrganization,
  });
  return {
    projects,
    registerRoutes(app: App) {
      registerOrganizationRoutes(app, service);
      registerProjectRoutes(app, projects);
      registerAccountRoutes(app, account, service);
    },
  };
}
