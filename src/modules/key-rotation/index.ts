// Key rotation's public entry: where the key ring comes from in embedded mode, and re-encrypting every stored
// secret under the newest key (each module rewriting its own rows through the `SecretsUnderKeyRing` port).
// What the OAuth composition and `src/main.ts` may use (docs/architecture.md, "OAuth, split by concern").

export { loadOrCreateKeyRing } from './key-ring-file.js';
export { createKeyRotation, type OtherSecrets } from './key-rotation.js';
export { registerKeyRotationRoute } from './key-rotation.routes.js';
