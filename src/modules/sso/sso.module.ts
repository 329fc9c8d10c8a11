import type { App } from '../../http/route-kit.js';
import { registerRoleMappingRoutes } from './role-mappings.routes.js';
import { createRoleMappingsService, type RoleMappingsDeps } from './role-mappings.service.js';

export type SsoModuleDeps = RoleMappingsDeps;

/** Single sign-on through an organization's identity provider (docs/sso.md). */
export function createSsoModule(deps: SsoModuleDeps) {
  const roleMappings = createRoleMappingsService(deps);
  return {
    roleMappings,
    /** Management routes (`/api/v1/sso/…`). */
    registerRoutes(app: App) {
      registerRoleMappingRoutes(app, roleMappings);
    },
  };
}
