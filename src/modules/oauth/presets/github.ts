import { IdentityError, type Preset, stringOf } from './preset.js';

export const githubPreset: Preset = {
  key: 'github',
  name: 'GitHub',
  discovery: false,
  authorizationEndpoint: 'https://github.com/login/oauth/authorize',
  tokenEndpoint: 'https://github.com/login/oauth/access_token',
  userinfoEndpoint: 'https://api.github.com/user',
  tokenEndpointAuth: 'client_secret_post',
  defaultScopes: ['read:user'],
  scopeSeparator: ' ',
  pkceVerified: true,
  async identity({ requestJson, userinfoEndpoint }) {
    const user = await requestJson(userinfoEndpoint ?? 'https://api.github.com/user');
    const accountId = stringOf(user.id);
    if (!accountId) throw new IdentityError('GitHub reported no user id');
    return { accountId, accountLabel: stringOf(user.login) };
  },
};
