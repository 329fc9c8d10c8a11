// The system module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export { createSystemModule } from './system.module.js';
