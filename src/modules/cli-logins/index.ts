// The CLI logins module's public entry: what other modules and the composition (src/app.ts) may use.
// Everything else in this folder is private to it (docs/architecture.md, "Boundaries").

export { createCliLoginsModule } from './cli-logins.module.js';
