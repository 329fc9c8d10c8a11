// OAuth's records and the protocol with providers: the integrations', their versions' and the connections'
// tables, the presets, the one way providers are reached and how their answers are read, and re-encrypting its
// secrets under a new key. What the integrations, connections and flow modules (and the composition) may use;
// everything else in this folder is private to it (docs/architecture.md, "OAuth, split by concern").

export { oauthAuditNames } from './audit-names.js';
export { clientSecretAad, connectionAad } from './ciphertexts.js';
export {
  type ConnectionRow,
  connections,
  type IntegrationRow,
  type IntegrationVersionRow,
  integrations,
  integrationVersions,
  type ProviderEndpoints,
} from './oauth.tables.js';
export {
  acceptableEndpoint,
  LOOPBACK_PROVIDER_SETTINGS,
  type OAuthHttpOptions,
  type OAuthNetworkOptions,
  providerFetch,
  requestOptions,
} from './oauth-http.js';
export {
  type AccountIdentity,
  allPresets,
  findPreset,
  PRESET_KEYS,
  type Preset,
  presetName,
} from './presets/index.js';
export {
  authorizationServer,
  clientAuthentication,
  clientOf,
  describeProviderError,
  grantedScopes,
  tokenResponseOptions,
} from './provider-client.js';
export { createOAuthSecretRotation } from './secret-rotation.js';
export { connectionsSource } from './usage.js';
