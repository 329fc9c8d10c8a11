import * as oauth from 'oauth4webapi';
import { isAllowedHost, type OutboundAllowance, type Resolver } from '../../lib/outbound/address-policy.js';
import { createOutboundFetch } from '../../lib/outbound/outbound-fetch.js';

/**
 * How Cadre reaches identity providers (docs/sso.md, "Network"): every request (discovery, keys, token)
 * through the outbound guard (src/lib/outbound/), public addresses only unless the operator allows a host
 * (CADRE_SSO_ALLOWED_PRIVATE_HOSTS); https, plain http only to an allowed host.
 */
export interface SsoNetworkOptions {
  allowedPrivateHosts: OutboundAllowance;
  timeoutMs?: number | undefined;
  /** Tests resolve names themselves. */
  resolve?: Resolver | undefined;
}

/** A failed step with the provider, with a code safe to show (the sign-in page names it). */
export class SsoFailure extends Error {
  override name = 'SsoFailure';
  constructor(
    readonly code: 'unreachable' | 'invalid_provider' | 'provider_error' | 'invalid_id_token',
    message: string,
  ) {
    super(message);
  }
}

/** The ID token's claims Cadre uses, once every check passed. */
export interface VerifiedIdentity {
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
  claims: Record<string, unknown>;
}

export interface ProviderClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export type OidcClient = ReturnType<typeof createOidcClient>;

/** Clock difference allowed between Cadre and the provider when reading `auth_time`. */
const AUTH_TIME_TOLERANCE_S = 30;

/** The OpenID Connect relying party: oauth4webapi's checks, over the guarded fetch. */
export function createOidcClient(network: SsoNetworkOptions) {
  const guardedFetch = createOutboundFetch({
    allowance: network.allowedPrivateHosts,
    timeoutMs: network.timeoutMs,
    resolve: network.resolve,
  });
  const timeoutMs = network.timeoutMs ?? 10_000;

  /** https, or plain http to a host the operator allows. */
  const acceptableUrl = (url: URL) =>
    !url.username &&
    !url.password &&
    !url.hash &&
    (url.protocol === 'https:' ||
      (url.protocol === 'http:' && isAllowedHost(network.allowedPrivateHosts, url)));

  const requestOptions = (issuer: URL) => ({
    signal: AbortSignal.timeout(timeoutMs),
    [oauth.customFetch]: guardedFetch,
    ...(issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {}),
  });

  const wrap = async <T>(code: SsoFailure['code'], work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof SsoFailure) throw error;
      if (error instanceof TypeError || (error instanceof Error && error.name === 'TimeoutError')) {
        throw new SsoFailure('unreachable', 'The identity provider could not be reached');
      }
      if (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError) {
        throw new SsoFailure('provider_error', `${error.error}: ${error.error_description ?? ''}`.trim());
      }
      throw new SsoFailure(code, error instanceof Error ? error.message : String(error));
    }
  };

  /** The provider's metadata from its discovery document; the issuer must be the one configured. */
  async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
    if (!URL.canParse(issuer) || !acceptableUrl(new URL(issuer))) {
      throw new SsoFailure('invalid_provider', 'The issuer must be an https URL');
    }
    const url = new URL(issuer);
    const as = await wrap('invalid_provider', async () =>
      oauth.processDiscoveryResponse(
        url,
        await oauth.discoveryRequest(url, { ...requestOptions(url), algorithm: 'oidc' }),
      ),
    );
    if (!as.authorization_endpoint || !as.token_endpoint || !as.jwks_uri) {
      throw new SsoFailure(
        'invalid_provider',
        'The discovery document names no authorization, token or keys endpoint',
      );
    }
    // An unsigned ID token is never accepted, whatever the provider says it supports.
    const algorithms = as.id_token_signing_alg_values_supported?.filter((alg) => alg !== 'none');
    return { ...as, id_token_signing_alg_values_supported: algorithms?.length ? algorithms : ['RS256'] };
  }

  const clientAuth = (as: oauth.AuthorizationServer, secret: string) =>
    as.token_endpoint_auth_methods_supported?.includes('client_secret_basic') === false &&
    as.token_endpoint_auth_methods_supported.includes('client_secret_post')
      ? oauth.ClientSecretPost(secret)
      : oauth.ClientSecretBasic(secret);

  return {
    discover,

    /** Where the browser goes: the authorization-code request with PKCE (S256), state and nonce. */
    async authorizationUrl(
      as: oauth.AuthorizationServer,
      clientId: string,
      request: {
        redirectUri: string;
        state: string;
        nonce: string;
        codeVerifier: string;
        loginHint?: string;
        /** The organization's maximum session age: the provider re-authenticates a person signed in longer ago. */
        maxAgeSeconds: number;
      },
    ): Promise<string> {
      const url = new URL(as.authorization_endpoint!);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', clientId);
      url.searchParams.set('redirect_uri', request.redirectUri);
      // `groups` where the provider offers it as a scope (Okta, Keycloak); others send the claim by configuration.
      const groups = as.scopes_supported?.includes('groups') ? ' groups' : '';
      url.searchParams.set('scope', `openid email profile${groups}`);
      url.searchParams.set('state', request.state);
      url.searchParams.set('nonce', request.nonce);
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(request.codeVerifier));
      url.searchParams.set('code_challenge_method', 'S256');
      if (request.loginHint) url.searchParams.set('login_hint', request.loginHint);
      url.searchParams.set('max_age', String(request.maxAgeSeconds));
      return url.href;
    },

    /**
     * The callback: the response's state and issuer, the code exchanged with the PKCE verifier, and the ID
     * token checked (issuer, audience, expiry, nonce, then its signature against the provider's keys).
     */
    async complete(
      as: oauth.AuthorizationServer,
      client: ProviderClient,
      callback: URL,
      expected: {
        redirectUri: string;
        state: string;
        nonce: string;
        codeVerifier: string;
        maxAgeSeconds: number;
      },
    ): Promise<VerifiedIdentity> {
      const issuer = new URL(client.issuer);
      const oauthClient: oauth.Client = { client_id: client.clientId };
      const params = await wrap('provider_error', async () =>
        oauth.validateAuthResponse(as, oauthClient, callback.searchParams, expected.state),
      );
      const claims = await wrap('invalid_id_token', async () => {
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          oauthClient,
          clientAuth(as, client.clientSecret),
          params,
          expected.redirectUri,
          expected.codeVerifier,
          requestOptions(issuer),
        );
        const result = await oauth.processAuthorizationCodeResponse(as, oauthClient, response, {
          expectedNonce: expected.nonce,
          requireIdToken: true,
        });
        await oauth.validateApplicationLevelSignature(as, response, requestOptions(issuer));
        return oauth.getValidatedIdTokenClaims(result)!;
      });
      // The provider's own session must not outlive the organization's maximum age: an authentication it
      // vouches for that is older is refused. A provider that does not say when (no auth_time, as some ignore
      // max_age) is taken at its word.
      const authenticatedAgoS = Math.floor(Date.now() / 1000) - Number(claims.auth_time);
      if (
        typeof claims.auth_time === 'number' &&
        authenticatedAgoS > expected.maxAgeSeconds + AUTH_TIME_TOLERANCE_S
      ) {
        throw new SsoFailure(
          'invalid_id_token',
          `The provider authenticated the person ${authenticatedAgoS} s ago, longer than the maximum age`,
        );
      }
      return {
        subject: claims.sub,
        email: typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : undefined,
        emailVerified: claims.email_verified === true,
        name: typeof claims.name === 'string' ? claims.name.slice(0, 200) : undefined,
        claims: claims as Record<string, unknown>,
      };
    },
  };
}

/** The groups a claim holds: an array of strings (or one string); anything else holds none. */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export const newRandomState = oauth.generateRandomState;
export const newNonce = oauth.generateRandomNonce;
export const newCodeVerifier = oauth.generateRandomCodeVerifier;
