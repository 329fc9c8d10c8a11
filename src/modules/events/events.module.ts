import type { App } from '../../http/route-kit.js';
import { followAuditTrail } from '../audit/index.js';
import { createEventSweep, type EventSweepDeps } from './event-sweep.js';
import { registerEventsRoutes } from './events.routes.js';
import { createEventsService } from './events.service.js';
import { eventWritesOfAuditChange } from './from-audit.js';

export interface EventsModuleDeps extends EventSweepDeps {
  /** How often the time-driven events (expiring keys, plan thresholds) are looked for. */
  sweepIntervalMs?: number | undefined;
  onError: (error: unknown) => void;
}

/** Events: written with each change (recordEvent), looked for periodically when time causes them, read through the management API. */
export function createEventsModule(deps: EventsModuleDeps) {
  // Every audited change writes the events it derives in its own statement (./from-audit.ts).
  followAuditTrail('events', eventWritesOfAuditChange);
  const service = createEventsService(deps);
  const sweep = createEventSweep(deps);
  let timer: NodeJS.Timeout | undefined;
  return {
    sweep,
    registerRoutes(app: App) {
      registerEventsRoutes(app, service);
    },
    start() {
      timer = setInterval(() => {
        sweep.sweepOnce().catch(deps.onError);
      }, deps.sweepIntervalMs ?? 60_000);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
