// The SCIM module's public entry.
export { createScimModule, type ScimModuleDeps } from './scim.module.js';
