import type { OwnBudgetCheck } from '../../http/rate-limit/rate-limit.js';
import type { App } from '../../http/route-kit.js';
import { registerScimRoutes, setUpScimFace } from './scim.routes.js';
import { createScimGroupsService } from './scim-groups.service.js';
import { registerScimTokenRoutes } from './scim-token.routes.js';
import { createScimTokenService } from './scim-token.service.js';
import { createScimUsersService, type ScimUsersDeps } from './scim-users.service.js';

export interface ScimModuleDeps extends Omit<ScimUsersDeps, 'baseUrl'> {
  /** The service's public origin: resources' locations are `{publicUrl}/scim/v2/…`. */
  publicUrl: () => string;
  onDatabaseUnavailable: () => void;
  /** Counts each organization's SCIM requests against SCIM's own budget (docs/scim.md, "Rate limits"). */
  rateLimit: OwnBudgetCheck;
}

/** SCIM 2.0 provisioning per organization (docs/scim.md): its face at /scim/v2 and its token's management routes. */
export function createScimModule(deps: ScimModuleDeps) {
  const baseUrl = () => `${deps.publicUrl().replace(/\/+$/, '')}/scim/v2`;
  const tokens = createScimTokenService(deps);
  const users = createScimUsersService({ ...deps, baseUrl });
  const groups = createScimGroupsService({ ...deps, users, baseUrl });
  return {
    setUpFace(app: App) {
      setUpScimFace(app, tokens, deps.onDatabaseUnavailable, deps.rateLimit);
    },
    registerRoutes(app: App) {
      registerScimRoutes(app, { users, groups, baseUrl });
    },
    registerManagementRoutes(app: App) {
      registerScimTokenRoutes(app, tokens);
    },
  };
}
