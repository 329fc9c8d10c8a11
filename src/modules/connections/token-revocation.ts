import * as oauth from 'oauth4webapi';
import {
  authorizationServer,
  clientAuthentication,
  clientOf,
  describeProviderError,
  type IntegrationVersionRow,
  type OAuthHttpOptions,
  requestOptions,
} from '../oauth/index.js';

/** What happened to a connection's tokens at its provider when it was disconnected (its audit event says). */
export type RevocationOutcome =
  | { outcome: 'revoked' }
  | { outcome: 'not_supported' }
  | { outcome: 'failed'; error: string };

export interface TokensToRevoke {
  accessToken: string;
  refreshToken: string | null;
}

/**
 * RFC 7009: asks the provider to revoke the refresh token (which ends the grant at providers that follow
 * the RFC's advice) and the access token, each with its `token_type_hint`, authenticating as the client the
 * way the version does at its token endpoint. Both requests run at once, each bounded by the HTTP timeout.
 * Never throws: a provider failure is reported, and the caller deletes the tokens anyway.
 */
export async function revokeAtProvider(
  version: IntegrationVersionRow,
  clientSecret: string,
  tokens: TokensToRevoke,
  http: OAuthHttpOptions,
): Promise<RevocationOutcome> {
  if (!version.provider.revocationEndpoint) return { outcome: 'not_supported' };
  const as = authorizationServer(version.provider);
  const client = clientOf(version);
  const auth = clientAuthentication(version, clientSecret);
  const revoke = async (token: string, hint: 'access_token' | 'refresh_token') => {
    const response = await oauth.revocationRequest(as, client, auth, token, {
      ...requestOptions(http),
      additionalParameters: { token_type_hint: hint },
    });
    await oauth.processRevocationResponse(response);
  };
  const results = await Promise.allSettled([
    ...(tokens.refreshToken ? [revoke(tokens.refreshToken, 'refresh_token')] : []),
    revoke(tokens.accessToken, 'access_token'),
  ]);
  const failure = results.find((result) => result.status === 'rejected');
  if (!failure) return { outcome: 'revoked' };
  const { code, description } = failureOf(failure.reason);
  return { outcome: 'failed', error: `${code}: ${description}`.slice(0, 300) };
}

/** An answer that is not RFC 7009's (a 503 page) is reported by its HTTP status. */
function failureOf(reason: unknown): { code: string; description: string } {
  if (reason instanceof oauth.OperationProcessingError && reason.cause instanceof Response) {
    return { code: 'unexpected_response', description: `HTTP ${reason.cause.status}` };
  }
  return describeProviderError(reason);
}
