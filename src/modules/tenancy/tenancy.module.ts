import type { App } from '../../http/route-kit.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { type AdminRouteDeps, registerAdminRoutes } from './admin.routes.js';

export interface TenancyModuleDeps extends Omit<AdminRouteDeps, 'resetPassword'> {
  sessions: Pick<SessionsService, 'resetPassword'>;
}

/**
 * The operator's organizations, members, projects and passwords (admin face). The tenancy service itself is
 * built before every module (they all read organizations), so this module receives it.
 */
export function createTenancyModule({ tenancy, apiKeys, sessions }: TenancyModuleDeps) {
  return {
    registerAdminRoutes(app: App) {
      registerAdminRoutes(app, { tenancy, apiKeys, resetPassword: sessions.resetPassword });
    },
  };
}
