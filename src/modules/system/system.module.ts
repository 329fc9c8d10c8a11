import type { Database } from '../../db/client.js';
import type { HealthMonitor } from '../../http/overload.js';
import type { App } from '../../http/route-kit.js';
import { registerSystemRoutes } from './system.routes.js';

export interface SystemModuleDeps {
  database: Database;
  health: HealthMonitor;
}

/** Health probes (system face). */
export function createSystemModule({ database, health }: SystemModuleDeps) {
  return {
    registerRoutes(app: App) {
      registerSystemRoutes(app, database, health);
    },
  };
}
