// The connections' public entry (the token vault): an environment's connections to providers, their access
// tokens kept valid by refreshing (one refresh at a time, under the row lock), and disconnecting (revoked at
// the provider, deleted, audited). What the flow and organization modules and the composition may use
// (docs/architecture.md, "OAuth, split by concern").

export { type ConnectionTokens, createConnectionTokens } from './connection-tokens.js';
export { type ConnectionRecord, environmentScope } from './connections.js';
export { registerConnectionRoutes } from './connections.routes.js';
export { createConnectionsService } from './connections.service.js';
export { createDisconnect, type DisconnectRow } from './disconnect.js';
export { type RevocationOutcome, revokeAtProvider } from './token-revocation.js';
