// The single sign-on module's public entry: what other modules (SCIM) and the app may use.

export { createSsoEnforcement } from './enforcement.js';
export type { SsoNetworkOptions } from './oidc-client.js';
export type { MappedRole, RoleMappings } from './role-mappings.schemas.js';
export { evaluateRoleMappings, type RoleMappingsService } from './role-mappings.service.js';
export { createSsoModule, type SsoModuleDeps } from './sso.module.js';
