import { IdentityError, objectOf, type Preset, stringOf } from './preset.js';

/** Notion: scopes are chosen on Notion's consent page; the token answer names the workspace and owner. */
export const notionPreset: Preset = {
  key: 'notion',
  name: 'Notion',
  discovery: false,
  authorizationEndpoint: 'https://api.notion.com/v1/oauth/authorize',
  tokenEndpoint: 'https://api.notion.com/v1/oauth/token',
  tokenEndpointAuth: 'client_secret_basic',
  defaultScopes: [],
  scopeSeparator: ' ',
  pkceVerified: false,
  authorizationParams: { owner: 'user' },
  async identity({ tokenResponse }) {
    const workspaceId = stringOf(tokenResponse.workspace_id);
    if (!workspaceId) throw new IdentityError('Notion reported no workspace');
    const owner = objectOf(objectOf(tokenResponse.owner).user);
    const ownerId = stringOf(owner.id);
    return {
      accountId: ownerId ? `${workspaceId}:${ownerId}` : workspaceId,
      accountLabel: stringOf(tokenResponse.workspace_name),
    };
  },
};
