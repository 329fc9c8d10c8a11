import { isIP } from 'node:net';
import * as oauth from 'oauth4webapi';
import {
  isAllowedHost,
  isPublicAddress,
  LOOPBACK_ALLOWANCE,
  NO_ALLOWANCE,
  type OutboundAllowance,
  type Resolver,
} from '../../lib/outbound/address-policy.js';
import { createOutboundFetch } from '../../lib/outbound/outbound-fetch.js';

/**
 * How Cadre talks to OAuth providers: the one adapter at this edge. Every request to a provider (discovery,
 * token, userinfo, revocation) goes through the outbound fetch (src/lib/outbound/, docs/operations.md
 * "Outbound requests"): public addresses only, checked and pinned, bounded by `timeoutMs`. Tests (and local
 * development, CADRE_DEV or CADRE_OAUTH_ALLOW_HTTP_LOOPBACK) set `allowInsecureRequests`, since their provider listens on
 * http://127.0.0.1: it allows plain http and this host's addresses, nothing else.
 */
export interface OAuthNetworkOptions {
  allowInsecureRequests?: boolean;
  timeoutMs?: number;
  /** Tests resolve names themselves. */
  resolve?: Resolver;
}

/** What the OAuth services use: the options, and the one fetch every provider request goes through. */
export interface OAuthHttpOptions extends OAuthNetworkOptions {
  fetch: typeof fetch;
}

/** The settings that let Cadre reach a provider on this host, named in every refusal. */
export const LOOPBACK_PROVIDER_SETTINGS =
  'a provider on this host (loopback, plain http) is allowed with CADRE_DEV=1 or CADRE_OAUTH_ALLOW_HTTP_LOOPBACK=true, for local development';

const allowanceOf = (options: OAuthNetworkOptions): OutboundAllowance =>
  options.allowInsecureRequests
    ? LOOPBACK_ALLOWANCE
    : { ...NO_ALLOWANCE, widenedBy: LOOPBACK_PROVIDER_SETTINGS };

/** The guarded fetch to providers. */
export function providerFetch(options: OAuthNetworkOptions): typeof fetch {
  return createOutboundFetch({
    allowance: allowanceOf(options),
    timeoutMs: options.timeoutMs,
    resolve: options.resolve,
  });
}

export type OAuthRequestOptions = {
  signal: AbortSignal;
  [oauth.customFetch]?: typeof fetch;
  [oauth.allowInsecureRequests]?: boolean;
};

export function requestOptions(options: OAuthHttpOptions): OAuthRequestOptions {
  const result: OAuthRequestOptions = {
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    [oauth.customFetch]: options.fetch,
  };
  if (options.allowInsecureRequests) result[oauth.allowInsecureRequests] = true;
  return result;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Endpoint URLs an integration may name: https; plain http only on loopback and only when insecure
 * requests are allowed (tests, and a local provider with CADRE_DEV or CADRE_OAUTH_ALLOW_HTTP_LOOPBACK). An address
 * literal must be public (or allowed); a name is checked on what it resolves to at each request.
 */
export function acceptableEndpoint(value: string, options: OAuthNetworkOptions): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.username || url.password || url.hash) return false;
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal) !== 0 && !isPublicAddress(literal) && !isAllowedHost(allowanceOf(options), url))
    return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && options.allowInsecureRequests === true && LOOPBACK.has(url.hostname);
}
