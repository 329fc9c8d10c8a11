// The tenancy module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export type { AccountCredentials } from './account-reset.js';
export { resetAccountCredentials } from './account-reset.js';
export { tenancyAuditNames } from './audit-names.js';
export { MEMBERSHIP_CHANGED } from './changes.js';
export { findEnvironment } from './environments.js';
export { createPathNameResolver } from './path-names.js';
export {
  presentAgent,
  presentEnvironment,
  presentMembership,
  presentOrganization,
  presentProject,
  presentUser,
} from './tenancy.presenters.js';
export {
  addMemberBody,
  agentSchema,
  createAgentBody,
  createEnvironmentBody,
  createOrganizationBody,
  createProjectBody,
  environmentSchema,
  membershipSchema,
  organizationSchema,
  projectSchema,
  setPasswordBody,
  userSchema,
} from './tenancy.schemas.js';
export type { TenancyService } from './tenancy.service.js';
export { createTenancyService } from './tenancy.service.js';
export type { Organization, User } from './tenancy.tables.js';
// The tables, for other modules' foreign keys and read-only joins only; every write goes through the tenancy
// service (docs/architecture.md, "Boundaries").
export {
  agents,
  environments,
  memberships,
  organizationIdColumn,
  organizations,
  projects,
  users,
} from './tenancy.tables.js';
