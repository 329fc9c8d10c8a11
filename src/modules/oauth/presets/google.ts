import { openIdIdentity, type Preset } from './preset.js';

export const googlePreset: Preset = {
  key: 'google',
  name: 'Google',
  discovery: true,
  issuer: 'https://accounts.google.com',
  tokenEndpointAuth: 'client_secret_basic',
  defaultScopes: ['openid', 'email', 'profile'],
  scopeSeparator: ' ',
  pkceVerified: true,
  // Without these Google issues no refresh token (or only on the very first consent).
  authorizationParams: { access_type: 'offline', prompt: 'consent' },
  identity: openIdIdentity,
};
