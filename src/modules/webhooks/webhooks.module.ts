import { serviceUnavailable } from '../../http/errors.js';
import type { App } from '../../http/route-kit.js';
import type { KeyRing } from '../oauth/token-vault.js';
import { registerWebhookRoutes } from './webhooks.routes.js';
import { createWebhooksService, type WebhooksServiceDeps } from './webhooks.service.js';

export interface WebhooksModuleDeps extends Omit<WebhooksServiceDeps, 'keyRing'> {
  /** Signing secrets are kept encrypted with it; without one, creating and rotating answer 503. */
  keyRing: KeyRing | undefined;
}

/** Webhook endpoints per organization (docs/webhooks.md). */
export function createWebhooksModule(deps: WebhooksModuleDeps) {
  const service = createWebhooksService({
    ...deps,
    keyRing: () => {
      if (!deps.keyRing) {
        throw serviceUnavailable(
          'Webhooks are not configured: set CADRE_ENCRYPTION_KEYS',
          3600,
          'not_configured',
        );
      }
      return deps.keyRing;
    },
  });
  return {
    registerRoutes(app: App) {
      registerWebhookRoutes(app, service);
    },
  };
}
