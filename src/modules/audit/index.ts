// The audit module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export { createAuditModule } from './audit.module.js';
export type { Actor, AuditChange, AuditFollower } from './audit.repo.js';
export { followAuditTrail, latestAuditEvents, recordAuditEvent } from './audit.repo.js';
export type { AuditMetadata } from './audit.tables.js';
export type { AuditRecordNames } from './audit-names.js';
