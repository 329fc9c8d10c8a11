import type { App } from '../../http/route-kit.js';
import { registerOrganizationRoutes } from './organization.routes.js';
import { createOrganizationService, type OrganizationServiceDeps } from './organization.service.js';

/** The caller and its organization's reads (`/v1/me`, projects, integrations) in the management API. */
export function createOrganizationModule(deps: OrganizationServiceDeps) {
  const service = createOrganizationService(deps);
  return {
    registerRoutes(app: App) {
      registerOrganizationRoutes(app, service);
    },
  };
}
