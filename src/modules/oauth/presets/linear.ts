import { IdentityError, objectOf, type Preset, stringOf } from './preset.js';

/** Linear: identity through its GraphQL API (`viewer`). */
export const linearPreset: Preset = {
  key: 'linear',
  name: 'Linear',
  discovery: false,
  authorizationEndpoint: 'https://linear.app/oauth/authorize',
  tokenEndpoint: 'https://api.linear.app/oauth/token',
  userinfoEndpoint: 'https://api.linear.app/graphql',
  tokenEndpointAuth: 'client_secret_post',
  defaultScopes: ['read'],
  scopeSeparator: ',',
  pkceVerified: true,
  async identity({ requestJson, userinfoEndpoint }) {
    const answer = await requestJson(userinfoEndpoint ?? 'https://api.linear.app/graphql', {
      query: '{ viewer { id name email } }',
    });
    const viewer = objectOf(objectOf(answer.data).viewer);
    const accountId = stringOf(viewer.id);
    if (!accountId) throw new IdentityError('Linear reported no viewer');
    return { accountId, accountLabel: stringOf(viewer.email) ?? stringOf(viewer.name) };
  },
};
