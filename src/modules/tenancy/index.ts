// The tenancy module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export type { AccountCredentials } from './account-reset.js';
export { resetAccountCredentials } from './account-reset.js';
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
export type { TenancyService, User } from './tenancy.service.js';
export { environments, organizationIdColumn, projects } from './tenancy.tables.js';
