import * as oauth from 'oauth4webapi';
import { type CookieOptions, expiredCookie, readCookie, serializeCookie } from '../../http/cookies.js';
import type { Clock } from '../../lib/clock.js';
import type { KeyRing } from '../../lib/key-ring.js';
import type { IntegrationsService } from '../integrations/index.js';
import {
  type AccountIdentity,
  describeProviderError,
  type IntegrationVersionRow,
  type OAuthHttpOptions,
  type Preset,
} from '../oauth/index.js';
import {
  createStateCookieCodec,
  STATE_COOKIE,
  STATE_COOKIE_PATH,
  STATE_TTL_SECONDS,
  type StatePayload,
} from './state-cookie.js';
import { type ExchangeResult, exchangeCode, identifyAccount } from './token-exchange.js';

export interface ProviderStepsDeps {
  clock: Clock;
  integrations: Pick<IntegrationsService, 'clientSecret'>;
  keyRing: () => KeyRing;
  http: OAuthHttpOptions;
  /** Cadre's own public origin (redirect_uri); a function because tests learn their port after start-up. */
  publicUrl: () => string;
}

/** What a successful exchange gives: the provider's token answer and the account it belongs to. */
export interface Exchanged {
  result: ExchangeResult;
  identity: AccountIdentity;
}

export type ProviderSteps = ReturnType<typeof createProviderSteps>;

/**
 * The flow's two trips to the provider, shared by connecting and verifying: the redirect to its authorization
 * endpoint (state and PKCE sealed in the state cookie), and the code exchange with the pinned version; with
 * the state cookie's reading and clearing, so the cookie's settings live in one place.
 */
export function createProviderSteps(deps: ProviderStepsDeps) {
  const { clock, integrations, http } = deps;
  const publicBase = () => deps.publicUrl().replace(/\/+$/, '');
  const redirectUri = (presetKey: string) => `${publicBase()}/api/oauth/callback/${presetKey}`;

  // The value is a JWE in compact form (base64url and dots), so it needs no cookie encoding.
  const stateCookieOptions = (): CookieOptions => ({
    path: STATE_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'Lax',
    secure: publicBase().startsWith('https:'),
  });
  const stateCookie = (value: string, maxAgeS: number): string =>
    serializeCookie(STATE_COOKIE, value, { ...stateCookieOptions(), maxAgeS });

  /** The redirect to the provider's authorization endpoint with a fresh state and PKCE, sealed in the cookie. */
  async function authorizationRedirect(
    preset: Preset,
    version: IntegrationVersionRow,
    pinned: Omit<StatePayload, 'state' | 'codeVerifier' | 'expiresAt'>,
  ) {
    const ring = deps.keyRing();
    const state = oauth.generateRandomState();
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const payload: StatePayload = {
      ...pinned,
      state,
      codeVerifier,
      expiresAt: clock.now().getTime() + STATE_TTL_SECONDS * 1000,
    };
    const url = new URL(version.provider.authorizationEndpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', version.clientId);
    url.searchParams.set('redirect_uri', redirectUri(preset.key));
    if (version.scopes.length > 0) url.searchParams.set('scope', version.scopes.join(preset.scopeSeparator));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    for (const [key, value] of Object.entries(preset.authorizationParams ?? {}))
      url.searchParams.set(key, value);
    const sealed = await createStateCookieCodec(ring).seal(payload);
    return { location: url.href, setCookie: stateCookie(sealed, STATE_TTL_SECONDS) };
  }

  /**
   * What both callbacks (connect and verify) do with the provider: exchange the code with the pinned version
   * and read the account; a failure as the `exchange_failed` description.
   */
  async function exchangeAndIdentify(
    preset: Preset,
    version: IntegrationVersionRow,
    payload: StatePayload,
    params: URLSearchParams,
  ): Promise<Exchanged | { failure: string }> {
    try {
      const result = await exchangeCode(version, integrations.clientSecret(version), {
        params,
        state: payload.state,
        codeVerifier: payload.codeVerifier,
        redirectUri: redirectUri(payload.presetKey),
        http,
      });
      return { result, identity: await identifyAccount(preset, version, result, http) };
    } catch (error) {
      const { code, description } = describeProviderError(error);
      return { failure: `${code}: ${description}` };
    }
  }

  return {
    redirectUri,
    authorizationRedirect,
    exchangeAndIdentify,
    /** The flow the callback's state cookie pins, if it opens (sealed by this ring, not tampered with). */
    openState: (cookieHeader: string | undefined) =>
      createStateCookieCodec(deps.keyRing()).open(readCookie(cookieHeader, STATE_COOKIE)),
    /** The Set-Cookie value that removes the state cookie (sent with every callback outcome). */
    clearStateCookie: () => expiredCookie(STATE_COOKIE, stateCookieOptions()),
  };
}
