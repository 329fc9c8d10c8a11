// The audit module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export { createAuditModule } from './audit.module.js';
export type { Actor, AuditChange, AuditFollower } from './audit.repo.js';
export { followAuditTrail, recordAuditEvent } from './audit.repo.js';
export type { AuditMetadata } from './audit.tables.js';
// The table, for other modules' read-only queries only (the operator's audit listing); a record is written by
// recordAuditEvent.
export { auditEvents } from './audit.tables.js';
export type { AuditRecordNames } from './audit-names.js';
