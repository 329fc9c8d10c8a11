import { IdentityError, objectOf, type Preset, stringOf } from './preset.js';

/** Slack OAuth v2: the token answer itself names the workspace (team) and the authorizing user. */
export const slackPreset: Preset = {
  key: 'slack',
  name: 'Slack',
  discovery: false,
  authorizationEndpoint: 'https://slack.com/oauth/v2/authorize',
  tokenEndpoint: 'https://slack.com/api/oauth.v2.access',
  tokenEndpointAuth: 'client_secret_post',
  defaultScopes: ['channels:read', 'chat:write'],
  scopeSeparator: ',',
  pkceVerified: false,
  extraTokenTypes: ['bot', 'user'],
  async identity({ tokenResponse }) {
    const team = objectOf(tokenResponse.team);
    const user = objectOf(tokenResponse.authed_user);
    const teamId = stringOf(team.id);
    if (!teamId) throw new IdentityError('Slack reported no team');
    const userId = stringOf(user.id);
    return { accountId: userId ? `${teamId}:${userId}` : teamId, accountLabel: stringOf(team.name) };
  },
};
