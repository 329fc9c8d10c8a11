// The events module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export { EVENT_TYPES, RECORDED_EVENT_TYPES } from './event-types.js';
export { createEventsModule } from './events.module.js';
export type { EventFollower } from './events.repo.js';
export { followEvents, recordEvent } from './events.repo.js';
export { presentEvent } from './events.service.js';
// The table, for other modules' foreign keys and read-only joins only; an event is written by recordEvent.
export { events } from './events.tables.js';
