import * as oauth from 'oauth4webapi';

/**
 * How Cadre talks to OAuth providers: the one adapter at this edge. Production uses the global fetch over
 * https; tests (and local development, CADRE_OAUTH_ALLOW_HTTP_LOOPBACK) pass `allowInsecureRequests`, since
 * their provider listens on http://127.0.0.1, and may pass a `fetch` of their own. Every request is bounded
 * by `timeoutMs`.
 */
export interface OAuthHttpOptions {
  fetch?: typeof fetch;
  allowInsecureRequests?: boolean;
  timeoutMs?: number;
}

export type OAuthRequestOptions = {
  signal: AbortSignal;
  [oauth.customFetch]?: typeof fetch;
  [oauth.allowInsecureRequests]?: boolean;
};

export function requestOptions(options: OAuthHttpOptions): OAuthRequestOptions {
  const result: OAuthRequestOptions = { signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) };
  if (options.fetch) result[oauth.customFetch] = options.fetch;
  if (options.allowInsecureRequests) result[oauth.allowInsecureRequests] = true;
  return result;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Endpoint URLs an integration may name: https; plain http only on loopback and only when insecure
 * requests are allowed (tests, and a local provider with CADRE_OAUTH_ALLOW_HTTP_LOOPBACK).
 */
export function acceptableEndpoint(value: string, options: OAuthHttpOptions): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.username || url.password || url.hash) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && options.allowInsecureRequests === true && LOOPBACK.has(url.hostname);
}
