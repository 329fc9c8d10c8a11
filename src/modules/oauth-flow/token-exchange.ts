import * as oauth from 'oauth4webapi';
import {
  type AccountIdentity,
  authorizationServer,
  clientAuthentication,
  clientOf,
  type IntegrationVersionRow,
  type OAuthHttpOptions,
  type Preset,
  requestOptions,
  tokenResponseOptions,
} from '../oauth/index.js';

export interface ExchangeInput {
  /** The callback's query parameters, as the provider sent them. */
  params: URLSearchParams;
  state: string;
  codeVerifier: string;
  redirectUri: string;
  http: OAuthHttpOptions;
}

export type ExchangeResult = Awaited<ReturnType<typeof exchangeCode>>;

/**
 * The code exchange at the pinned version's token endpoint (oauth4webapi): validates the authorization
 * response (state, and `iss` where the provider sends it), sends the PKCE verifier, and validates the
 * token answer (and the id_token's claims when there is one). Throws oauth4webapi's errors.
 */
export async function exchangeCode(
  version: IntegrationVersionRow,
  clientSecret: string,
  input: ExchangeInput,
) {
  const as = authorizationServer(version.provider);
  const client = clientOf(version);
  const callbackParameters = oauth.validateAuthResponse(as, client, input.params, input.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuthentication(version, clientSecret),
    callbackParameters,
    input.redirectUri,
    input.codeVerifier,
    requestOptions(input.http),
  );
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    response,
    tokenResponseOptions(version.presetKey),
  );
  return { tokens, claims: oauth.getValidatedIdTokenClaims(tokens) };
}

/** Who authorized: the preset reads it from the id_token, the token answer or the provider's API. */
export function identifyAccount(
  preset: Preset,
  version: IntegrationVersionRow,
  result: ExchangeResult,
  http: OAuthHttpOptions,
): Promise<AccountIdentity> {
  return preset.identity({
    claims: result.claims as Record<string, unknown> | undefined,
    tokenResponse: result.tokens as unknown as Record<string, unknown>,
    userinfoEndpoint: version.provider.userinfoEndpoint,
    async requestJson(url, body) {
      // GitHub's API refuses requests without a User-Agent.
      const headers = new Headers({ accept: 'application/json', 'user-agent': 'cadre' });
      if (body !== undefined) headers.set('content-type', 'application/json');
      const response = await oauth.protectedResourceRequest(
        result.tokens.access_token,
        body === undefined ? 'GET' : 'POST',
        new URL(url),
        headers,
        body === undefined ? null : JSON.stringify(body),
        requestOptions(http),
      );
      if (!response.ok) throw new Error(`identity request answered HTTP ${response.status}`);
      return (await response.json()) as Record<string, unknown>;
    },
  });
}
