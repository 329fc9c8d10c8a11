// The metrics module's public entry: what other modules and the composition (src/app.ts) may use. Everything
// else in this folder is private to it (docs/architecture.md, "Boundaries").

export { timedOAuthFetch } from './instrument.js';
export type {
  CacheEvents,
  CatalogReadEvents,
  DeliveryEvents,
  KeyCacheEvents,
  Metrics,
  ProviderCallTimer,
} from './metrics.js';
export { createMetricsModule } from './metrics.module.js';
export { startMetricsServer } from './metrics-server.js';
