import type { App } from '../../http/route-kit.js';
import { registerCliLoginRoutes } from './cli-logins.routes.js';
import { type CliLoginsServiceDeps, createCliLoginsService } from './cli-logins.service.js';

/** `cadre login`: device-style sign-in requests, approved in the console (the auth face). */
export function createCliLoginsModule(deps: CliLoginsServiceDeps) {
  const service = createCliLoginsService(deps);
  return {
    service,
    registerRoutes(app: App) {
      registerCliLoginRoutes(app, service);
    },
  };
}
