import * as oauth from 'oauth4webapi';
import type { IntegrationVersionRow, ProviderEndpoints } from './oauth.tables.js';
import { findPreset } from './presets/index.js';

/** oauth4webapi's view of a pinned Integration Version's provider. */
export function authorizationServer(provider: ProviderEndpoints): oauth.AuthorizationServer {
  return {
    issuer: provider.issuer ?? new URL(provider.authorizationEndpoint).origin,
    authorization_endpoint: provider.authorizationEndpoint,
    token_endpoint: provider.tokenEndpoint,
    ...(provider.userinfoEndpoint ? { userinfo_endpoint: provider.userinfoEndpoint } : {}),
    ...(provider.revocationEndpoint ? { revocation_endpoint: provider.revocationEndpoint } : {}),
    authorization_response_iss_parameter_supported: provider.issParameterSupported,
  };
}

export const clientOf = (version: IntegrationVersionRow): oauth.Client => ({ client_id: version.clientId });

export const clientAuthentication = (version: IntegrationVersionRow, secret: string): oauth.ClientAuth =>
  version.provider.tokenEndpointAuth === 'client_secret_post'
    ? oauth.ClientSecretPost(secret)
    : oauth.ClientSecretBasic(secret);

/** How token answers are processed: the preset's extra token types are accepted as bearer-like. */
export function tokenResponseOptions(presetKey: string): oauth.ProcessTokenResponseOptions {
  const types = findPreset(presetKey)?.extraTokenTypes ?? [];
  return {
    recognizedTokenTypes: Object.fromEntries(types.map((type) => [type.toLowerCase(), () => undefined])),
  };
}

/** Granted scopes from a token answer (space- or comma-separated, depending on the provider). */
export function grantedScopes(scope: unknown, requested: string[]): string[] {
  if (typeof scope !== 'string') return requested;
  return scope.split(/[\s,]+/).filter(Boolean);
}

/** A provider error in a form safe to show and store: its OAuth code and description, or the failure kind. */
export function describeProviderError(error: unknown): { code: string; description: string } {
  if (error instanceof oauth.ResponseBodyError) {
    return { code: error.error, description: error.error_description ?? `HTTP ${error.status}` };
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    // A 401 with WWW-Authenticate (client authentication failed): the challenge carries the OAuth error.
    const parameters = error.cause[0]?.parameters;
    return {
      code: parameters?.error ?? 'invalid_client',
      description: parameters?.error_description ?? `HTTP ${error.status}`,
    };
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    return { code: error.error, description: error.error_description ?? error.error };
  }
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return { code: 'timeout', description: 'The provider did not answer in time' };
  }
  if (error instanceof oauth.OperationProcessingError) {
    return { code: 'invalid_response', description: error.message };
  }
  if (error instanceof TypeError) {
    return { code: 'unreachable', description: 'The provider could not be reached' };
  }
  return { code: 'provider_error', description: error instanceof Error ? error.message : 'unknown error' };
}
