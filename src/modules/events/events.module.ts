import type { App } from '../../http/route-kit.js';
import { registerEventsRoutes } from './events.routes.js';
import { createEventsService, type EventsServiceDeps } from './events.service.js';

/** Events: written with each change (recordEvent), read through the management API. */
export function createEventsModule(deps: EventsServiceDeps) {
  const service = createEventsService(deps);
  return {
    service,
    registerRoutes(app: App) {
      registerEventsRoutes(app, service);
    },
  };
}
