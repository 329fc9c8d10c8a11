import { openIdIdentity, type Preset } from './preset.js';

/** Any OpenID provider: the integration names its issuer and discovery supplies the endpoints. */
export const oidcPreset: Preset = {
  key: 'oidc',
  name: 'OpenID Connect',
  discovery: true,
  tokenEndpointAuth: 'client_secret_basic',
  defaultScopes: ['openid', 'email', 'profile'],
  scopeSeparator: ' ',
  pkceVerified: true,
  identity: openIdIdentity,
};
