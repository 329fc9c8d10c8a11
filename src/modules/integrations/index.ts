// The integrations' public entry: an organization's own OAuth client per preset, as a chain of immutable
// versions, registered by the operator (admin face) or by owners and admins (management face). What the
// connections and flow modules, the organization module and the composition may use (docs/architecture.md,
// "OAuth, split by concern").

export { createIntegrationManagement } from './integrations.manage.js';
export { registerIntegrationManagementRoutes } from './integrations.manage.routes.js';
export { registerIntegrationAdminRoutes } from './integrations.routes.js';
export { integrationSchema, presetSchema } from './integrations.schemas.js';
export { createIntegrationsService, type IntegrationsService } from './integrations.service.js';
