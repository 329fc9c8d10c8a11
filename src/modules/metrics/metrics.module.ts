import type { App } from '../../http/route-kit.js';
import { createMetrics, disabledMetrics, type MetricsDeps } from './metrics.js';
import { registerMetricsRoute } from './metrics.routes.js';

export interface MetricsModuleDeps extends MetricsDeps {
  /** false: CADRE_METRICS=off, every callback does nothing and /metrics is not served. */
  enabled: boolean;
  /** Guards /metrics on the main port with a Bearer token (else loopback only). */
  token: string | undefined;
  /** /metrics is served on a port of its own (main.ts), not on the main one. */
  separatePort: boolean;
}

/** Prometheus metrics: the counters other modules feed, and /metrics (system face). */
export function createMetricsModule({ enabled, token, separatePort, ...deps }: MetricsModuleDeps) {
  const metrics = enabled ? createMetrics(deps) : disabledMetrics;
  return {
    metrics,
    registerRoutes(app: App) {
      if (metrics.enabled && !separatePort) registerMetricsRoute(app, metrics, token);
    },
  };
}
