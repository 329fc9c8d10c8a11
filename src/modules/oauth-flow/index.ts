// The OAuth flow's public entry: the module the composition (src/app.ts) builds and registers into the
// management and admin faces. It holds the connect and verification flows (start, callback, the state cookie,
// `returnTo`, the code exchange) and composes the integrations, connections and key rotation modules under it
// (docs/architecture.md, "OAuth, split by concern").

export { createOAuthModule } from './oauth.module.js';
export type { OAuthService } from './oauth.service.js';
