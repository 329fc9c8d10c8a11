// The auth module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export type { Grant, Permission } from './grants.js';
export { grantSchema, PERMISSIONS } from './grants.js';
export type { Actor, ApiKeyPrincipal, Principal, Scope, SessionPrincipal } from './permissions.js';
export { can, grantReaches, managesAllApiKeys, ROLE_PERMISSIONS, requirePermission } from './permissions.js';
