/** Who the connected account is, as the provider reports it. */
export interface AccountIdentity {
  accountId: string;
  accountLabel: string | null;
}

/** What an identity reader may use: the validated id_token claims, the raw token answer, authenticated calls. */
export interface IdentityContext {
  claims: Record<string, unknown> | undefined;
  tokenResponse: Record<string, unknown>;
  /** The version's userinfo endpoint (preset default, override or discovery), if any. */
  userinfoEndpoint: string | null;
  /** A JSON request to the provider's API with the new access token (GET, or POST with a JSON body). */
  requestJson(url: string, body?: unknown): Promise<Record<string, unknown>>;
}

/**
 * A built-in provider description. Endpoints either come from the preset, from admin overrides, or (when
 * `discovery`) from the issuer's OpenID discovery document, resolved once per Integration Version.
 * Cadre always sends PKCE (S256); `pkceVerified` records whether the provider checks it, for the docs.
 */
export interface Preset {
  key: string;
  name: string;
  discovery: boolean;
  /** Default issuer for discovery presets (google); the `oidc` preset needs the integration's own. */
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  /** RFC 7009 revocation endpoint, for presets without discovery whose provider has one. */
  revocationEndpoint?: string;
  tokenEndpointAuth: 'client_secret_basic' | 'client_secret_post';
  defaultScopes: string[];
  /** How the provider wants `scope` joined in the authorization request. */
  scopeSeparator: ' ' | ',';
  pkceVerified: boolean;
  /** Token types besides `bearer` the provider issues (Slack: `bot`, `user`); others are refused. */
  extraTokenTypes?: string[];
  /** Extra authorization request parameters (e.g. Google's `access_type=offline` to get a refresh token). */
  authorizationParams?: Record<string, string>;
  identity(context: IdentityContext): Promise<AccountIdentity>;
}

export const stringOf = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 ? value : typeof value === 'number' ? String(value) : null;

export const objectOf = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

export class IdentityError extends Error {
  override name = 'IdentityError';
}

const labelOf = (claims: Record<string, unknown> | undefined) =>
  stringOf(claims?.email) ?? stringOf(claims?.preferred_username) ?? stringOf(claims?.name);

/**
 * OpenID identity: the id_token's `sub`; its label from the id_token, else from userinfo (providers that
 * follow OpenID Connect's default put profile claims only in userinfo when an access token is issued).
 */
export async function openIdIdentity(context: IdentityContext): Promise<AccountIdentity> {
  let claims = context.claims;
  let label = labelOf(claims);
  if ((!stringOf(claims?.sub) || !label) && context.userinfoEndpoint) {
    const userinfo = await context.requestJson(context.userinfoEndpoint);
    // userinfo must describe the same subject as the id_token (OpenID Connect Core §5.3.2).
    if (stringOf(claims?.sub) && stringOf(userinfo.sub) !== stringOf(claims?.sub)) {
      throw new IdentityError('userinfo describes another subject than the id_token');
    }
    claims = { ...userinfo, ...claims };
    label = labelOf(claims);
  }
  const accountId = stringOf(claims?.sub);
  if (!accountId) throw new IdentityError('the provider reported no subject (sub)');
  return { accountId, accountLabel: label };
}
