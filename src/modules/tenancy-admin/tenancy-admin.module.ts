import type { App } from '../../http/route-kit.js';
import type { SessionsService } from '../sessions/index.js';
import { type AdminRouteDeps, registerAdminRoutes } from './admin.routes.js';

export interface TenancyAdminModuleDeps extends Omit<AdminRouteDeps, 'resetPassword'> {
  sessions: Pick<SessionsService, 'resetPassword'>;
}

/**
 * The operator's organizations, members, projects and passwords (admin face). The tenancy service itself is
 * built before every module (they all read organizations), so this module receives it; it is a module of its
 * own, above tenancy, because creating an organization makes its owner's API key and setting a password ends
 * the user's sessions (docs/architecture.md, "Module map").
 */
export function createTenancyAdminModule({ tenancy, apiKeys, sessions }: TenancyAdminModuleDeps) {
  return {
    registerAdminRoutes(app: App) {
      registerAdminRoutes(app, { tenancy, apiKeys, resetPassword: sessions.resetPassword });
    },
  };
}
