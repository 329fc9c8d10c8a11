// The service's API types, generated once for every client (src/api-schema.d.ts, `npm run console:api-types`).
export type { components, paths } from '../../../src/api-schema.js';
