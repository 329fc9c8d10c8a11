// The registry faces' public entry: the module the composition (src/app.ts) builds and registers into the
// registry, Perstack, management and admin faces, its service, and the policy a new organization starts with.

export { seedPublishPolicy } from './policy.service.js';
export type { RegistryService } from './registry.service.js';
export { createRegistryModule } from './registry-faces.module.js';
