import * as oauth from 'oauth4webapi';

/**
 * How Cadre talks to OAuth providers: the one adapter at this edge. Production uses the global fetch over
 * https; tests pass `allowInsecureRequests` (their provider listens on http://127.0.0.1) and may pass a
 * `fetch` of their own. Every request is bounded by `timeoutMs`.
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

/** Endpoint URLs an integration may name: https, or http too when insecure requests are allowed (tests). */
export function acceptableEndpoint(value: string, options: OAuthHttpOptions): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.username || url.password || url.hash) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && options.allowInsecureRequests === true);
}
