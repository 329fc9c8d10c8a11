import { serviceUnavailable } from '../../http/errors.js';
import type { App } from '../../http/route-kit.js';
import type { KeyRing } from '../../lib/key-ring.js';
import { NO_ALLOWANCE } from '../../lib/outbound/address-policy.js';
import { followEvents } from '../events/index.js';
import { queueDeliveriesOfEvents } from './deliveries.repo.js';
import { createDeliveriesService } from './deliveries.service.js';
import { createDeliveryWorker, type DeliveryWorkerDeps } from './delivery-worker.js';
import { registerWebhookRoutes } from './webhooks.routes.js';
import { createWebhooksService, type WebhooksServiceDeps } from './webhooks.service.js';

const WIDENED_BY =
  'CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS lists the hosts allowed although private; CADRE_DEV=1 allows loopback during local development';

export interface WebhooksModuleDeps
  extends Omit<WebhooksServiceDeps, 'keyRing' | 'allowedPrivateHosts'>,
    Pick<DeliveryWorkerDeps, 'events' | 'onError'> {
  /** Signing secrets are kept encrypted with it; without one, creating and rotating answer 503. */
  keyRing: KeyRing | undefined;
  /** CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS, parsed, and loopback with CADRE_DEV (default: none). */
  allowedPrivateHosts?: WebhooksServiceDeps['allowedPrivateHosts'] | undefined;
  /** The delivery worker's tuning (tests: a fast poll, a short lease). */
  worker?: Pick<
    DeliveryWorkerDeps,
    'pollIntervalMs' | 'leaseMs' | 'concurrency' | 'perOrganization' | 'timeoutMs' | 'resolve'
  >;
}

/** Webhook endpoints per organization and the deliveries to them (docs/webhooks.md). */
export function createWebhooksModule(deps: WebhooksModuleDeps) {
  // Every event written queues its deliveries in the same statement (./deliveries.repo.ts).
  followEvents('queued', queueDeliveriesOfEvents);
  // Every refusal names the settings that would lift it (a developer's loopback receiver above all).
  const allowedPrivateHosts = { ...(deps.allowedPrivateHosts ?? NO_ALLOWANCE), widenedBy: WIDENED_BY };
  const service = createWebhooksService({
    ...deps,
    allowedPrivateHosts,
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
  // Without a key ring no endpoint can exist (creating one answers 503): nothing to deliver.
  const worker = deps.keyRing
    ? createDeliveryWorker({ ...deps, ...deps.worker, keyRing: deps.keyRing, allowedPrivateHosts })
    : undefined;
  const deliveries = createDeliveriesService({ ...deps, wake: () => worker?.wake() });
  return {
    worker,
    registerRoutes(app: App) {
      registerWebhookRoutes(app, service, deliveries);
    },
    start() {
      worker?.start();
    },
    /** Claims no more; the deliveries in flight finish (or, if the process dies first, their lease runs out). */
    async stop() {
      await worker?.stop();
    },
  };
}
