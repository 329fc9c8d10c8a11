import type { ProviderCallTimer } from './metrics.js';

/**
 * A fetch for OAuth providers that times each call. The operation label is bounded: `discovery`, the token
 * grant type (`authorization_code`, `refresh_token`), `revocation`, or the method (`get` for userinfo).
 */
export function timedOAuthFetch(inner: typeof fetch, time: ProviderCallTimer): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    return time('oauth', oauthOperation(url, init), async () => {
      const response = await inner(input, init);
      // A provider's error answer is a failed call too (the outcome label), though oauth4webapi reads it.
      if (response.status >= 500)
        throw Object.assign(new Error(`provider answered ${response.status}`), { response });
      return response;
    }).catch((error: unknown) => {
      const response = (error as { response?: Response }).response;
      if (response) return response;
      throw error;
    });
  };
}

function oauthOperation(url: URL, init: RequestInit | undefined): string {
  if (url.pathname.includes('/.well-known/')) return 'discovery';
  const body = init?.body;
  if (body instanceof URLSearchParams) {
    const grant = body.get('grant_type');
    if (grant === 'authorization_code' || grant === 'refresh_token') return grant;
    if (body.has('token')) return 'revocation';
  }
  return (init?.method ?? 'GET').toLowerCase();
}
