// The members module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export { invitationAuditNames } from './audit-names.js';
export type { SmtpOptions } from './mailer.js';
export { createMembersModule } from './members.module.js';
export type { MembersService } from './members.service.js';
