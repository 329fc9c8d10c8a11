// The tenancy-admin module's public entry: what the composition (src/app.ts) uses. Everything else in this
// folder is private to it (docs/architecture.md, "Boundaries").

export { createTenancyAdminModule } from './tenancy-admin.module.js';
