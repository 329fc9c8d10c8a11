// The sessions module's public entry: what other modules and the composition (src/app.ts) may use.
// Everything else in this folder is private to it (docs/architecture.md, "Boundaries").

export type { GuessBudget } from './guess-budget.js';
export type { LoginLimits } from './login-limiter.js';
export { createSessionsModule } from './sessions.module.js';
export type { PasswordPolicy, SessionsService } from './sessions.service.js';
export { SESSION_COOKIE } from './sessions.service.js';
export { consoleSessions } from './sessions.tables.js';
export { endUserSessions } from './user-sessions.js';
