import { bearerToken, type PrincipalResolver } from '../../http/auth.js';
import type { ApiKeyAuthenticator } from './api-key-authenticator.js';

/** `Authorization: Bearer cadre_…`. Any other Authorization header is an invalid credential, never ignored. */
export function createApiKeyResolver(authenticator: ApiKeyAuthenticator): PrincipalResolver {
  return {
    resolve(request) {
      const token = bearerToken(request);
      if (token === undefined) return null;
      if (token === 'malformed') return 'invalid';
      const principal = authenticator.authenticate(token);
      return principal instanceof Promise
        ? principal.then((found) => found ?? 'invalid')
        : (principal ?? 'invalid');
    },
  };
}
