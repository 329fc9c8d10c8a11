import type { App } from '../../http/route-kit.js';
import { registerAuditRoutes } from './audit.routes.js';
import { type AuditServiceDeps, createAuditService } from './audit.service.js';

/** The organization's audit log, read through the management API. */
export function createAuditModule(deps: AuditServiceDeps) {
  const service = createAuditService(deps);
  return {
    registerRoutes(app: App) {
      registerAuditRoutes(app, service);
    },
  };
}
