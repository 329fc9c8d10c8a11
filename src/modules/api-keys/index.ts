// The API keys module's public entry: what other modules and the composition (src/app.ts) may use.
// Everything else in this folder is private to it (docs/architecture.md, "Boundaries").

export { API_KEY_CHANGED, type ApiKeyAuthenticator } from './api-key-authenticator.js';
export { createApiKeyBody, createdApiKeySchema } from './api-keys.schemas.js';
export type { ApiKeysService } from './api-keys.service.js';
export { apiKeys } from './api-keys.tables.js';
export { keysExpiringBy } from './expiring.js';
export { activeApiKeysSource } from './usage.js';
export { revokeUserApiKeys } from './user-keys.js';
