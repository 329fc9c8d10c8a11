// The webhooks module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export { webhookAuditNames } from './audit-names.js';
export { queueLagSeconds } from './deliveries.repo.js';
export type { DeliveryWorker } from './delivery-worker.js';
export { createSigningSecretRotation } from './secret-rotation.js';
export { createWebhooksModule, type WebhooksModuleDeps } from './webhooks.module.js';
