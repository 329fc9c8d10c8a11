// The API keys module's public entry: what other modules and the composition (src/app.ts) may use.
// Everything else in this folder is private to it (docs/architecture.md, "Boundaries").

export { API_KEY_CHANGED, type ApiKeyAuthenticator } from './api-key-authenticator.js';
export { createApiKeysModule } from './api-keys.module.js';
export { createApiKeyBody, createdApiKeySchema } from './api-keys.schemas.js';
export type { ApiKeysService } from './api-keys.service.js';
// The table, for other modules' foreign keys only; every write goes through the API keys' service.
export { apiKeys } from './api-keys.tables.js';
export { apiKeyAuditNames } from './audit-names.js';
export { keysExpiringBy } from './expiring.js';
export { activeApiKeysSource } from './usage.js';
export { revokeUserApiKeys } from './user-keys.js';
