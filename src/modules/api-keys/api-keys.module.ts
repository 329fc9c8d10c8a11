import type { App } from '../../http/route-kit.js';
import { type ApiKeyAuthenticatorDeps, createApiKeyAuthenticator } from './api-key-authenticator.js';
import { createApiKeyResolver } from './api-key-resolver.js';
import { registerApiKeyRoutes } from './api-keys.routes.js';
import { type ApiKeysServiceDeps, createApiKeysService } from './api-keys.service.js';

export type ApiKeysModuleDeps = ApiKeyAuthenticatorDeps & Omit<ApiKeysServiceDeps, 'authenticator'>;

/** API keys: the authenticator (cached verification, last-used writes), the service and its routes. */
export function createApiKeysModule(deps: ApiKeysModuleDeps) {
  const authenticator = createApiKeyAuthenticator(deps);
  const service = createApiKeysService({ ...deps, authenticator });
  return {
    authenticator,
    service,
    /** Resolves `Authorization: Bearer` API keys (the request pipeline's authentication). */
    resolver: createApiKeyResolver(authenticator),
    /** The management API's key routes. */
    registerRoutes(app: App) {
      registerApiKeyRoutes(app, service);
    },
    start() {
      authenticator.start();
    },
    async stop() {
      await authenticator.stop();
    },
  };
}
