import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { FACES } from '../../http/faces.js';
import type { ResponseStep } from '../../http/pipeline.js';
import type { CircuitState } from '../../http/rate-limit/store.js';
import { fastCounter, fastCounterBy, fastHistogram } from './hot-path-metrics.js';

/** What the webhook delivery worker reports to the metrics (no-ops when metrics are off). */
export interface DeliveryEvents {
  /** One attempt: `succeeded` (2xx), `http_error`, `timeout`, `network_error` or `refused` (unsafe target). */
  attempt(outcome: 'succeeded' | 'http_error' | 'timeout' | 'network_error' | 'refused'): void;
  /** A delivery given up (its retries spent, or its endpoint answered 410). */
  gaveUp(): void;
  /** An endpoint Cadre disabled: `gone` (410) or `failing` (three days of failures). */
  endpointDisabled(reason: 'gone' | 'failing'): void;
}

/** What the components that count something are given: narrow callbacks, no-ops when metrics are off. */
export interface CacheEvents {
  hit(): void;
  miss(): void;
  evicted(count: number): void;
  invalidated(): void;
}

/** A read of the MCP catalog's v0.1 face, by route pattern, answered from the cache or the database. */
export interface CatalogReadEvents {
  read(route: string, answer: 'cache' | 'database'): void;
}

export interface KeyCacheEvents {
  hit(): void;
  miss(): void;
}

/** Times one call to an outside provider (a payment provider, an OAuth server) and counts its failures. */
export type ProviderCallTimer = <T>(
  provider: string,
  operation: string,
  call: () => Promise<T>,
) => Promise<T>;

/** A database's connection gauges and query timings (see Database.stats and Database.observeQueries). */
interface DatabaseSignals {
  kind: string;
  stats(): { total: number; idle: number; waiting: number };
  observeQueries(observer: (seconds: number, failed: boolean) => void): void;
}

export interface Metrics {
  readonly enabled: boolean;
  /** Response step: one observation per answered request. */
  readonly requestStep: ResponseStep | undefined;
  readonly registryCache: CacheEvents;
  readonly apiKeyCache: KeyCacheEvents;
  readonly mcpCatalogReads: CatalogReadEvents;
  readonly providerCall: ProviderCallTimer;
  readonly webhookDeliveries: DeliveryEvents;
  /** How the webhook queue-lag gauge reads the oldest due delivery's age, in seconds (read at each scrape). */
  webhookQueueLag(source: () => Promise<number>): void;
  /** The exposition text and its content type. */
  render(): Promise<{ body: string; contentType: string }>;
}

export interface MetricsDeps {
  version: string;
  database: DatabaseSignals;
  /** The event loop's recent worst lag (ms), as the overload monitor samples it. */
  eventLoopDelayMs: () => number;
  /** Node's process metrics (CPU, memory, GC, handles): once per process, not per app built in a test. */
  processMetrics?: boolean;
  /** The shared rate-limit store's circuit breaker, when there is one (Redis). */
  rateLimitCircuit?: () => CircuitState;
}

const NOOP = () => undefined;
const passThrough: ProviderCallTimer = (_provider, _operation, call) => call();

/** Metrics turned off (CADRE_METRICS=off): every callback does nothing and /metrics is not served. */
export const disabledMetrics: Metrics = {
  enabled: false,
  requestStep: undefined,
  registryCache: { hit: NOOP, miss: NOOP, evicted: NOOP, invalidated: NOOP },
  apiKeyCache: { hit: NOOP, miss: NOOP },
  mcpCatalogReads: { read: NOOP },
  providerCall: passThrough,
  webhookDeliveries: { attempt: NOOP, gaveUp: NOOP, endpointDisabled: NOOP },
  webhookQueueLag: NOOP,
  render: async () => ({ body: '', contentType: 'text/plain' }),
};

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** The face a route belongs to, from its registered pattern (never the raw URL: bounded label values). */
function faceOf(pattern: string): string {
  if (pattern.startsWith(`${FACES.perstack.prefix}/`)) return 'perstack';
  const first = pattern.split('/')[1] ?? '';
  if (first === 'registry' || first === 'mcp' || first === 'api' || first === 'admin' || first === 'auth')
    return first;
  return 'system';
}

const UNMATCHED = {};

/**
 * Prometheus metrics of one app (prom-client, a registry of its own so tests can build many apps). Every
 * label set is bounded: routes by their registered pattern (`unmatched` for 404s without a route), status
 * by class, refusals by code and caller class, shedding by cause. See docs/operations.md for the list.
 */
export function createMetrics(deps: MetricsDeps): Metrics {
  const registry = new Registry();
  if (deps.processMetrics) collectDefaultMetrics({ register: registry });

  new Gauge({
    name: 'cadre_build_info',
    help: 'Cadre build: version and Node.js release (always 1)',
    labelNames: ['version', 'node'],
    registers: [registry],
  }).set({ version: deps.version, node: process.version }, 1);

  const requests = fastHistogram<object>(registry, {
    name: 'cadre_http_request_duration_seconds',
    help: 'Answered requests by face, route pattern, method and status class: count and latency',
    buckets: SECONDS,
  });
  const refusals = new Counter({
    name: 'cadre_http_refusals_total',
    help: 'Requests refused with 429 (rate limits) or 503 (load shedding, deadline, draining) by code and cause',
    labelNames: ['status', 'code', 'cause'],
    registers: [registry],
  });
  new Gauge({
    name: 'cadre_event_loop_lag_seconds',
    help: 'Worst event-loop delay over the last sample of the overload monitor',
    registers: [registry],
    collect() {
      this.set(deps.eventLoopDelayMs() / 1000);
    },
  });
  const pool = new Gauge({
    name: 'cadre_db_pool_connections',
    help: 'Database pool connections by state (in_use, idle) and queries waiting for one (waiting)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = deps.database.stats();
      pool.set({ state: 'in_use' }, stats.total - stats.idle);
      pool.set({ state: 'idle' }, stats.idle);
      pool.set({ state: 'waiting' }, stats.waiting);
    },
  });
  const circuit = deps.rateLimitCircuit;
  if (circuit) {
    const states: CircuitState[] = ['closed', 'open', 'half_open'];
    const gauge = new Gauge({
      name: 'cadre_rate_limit_store_circuit',
      help: "The Redis rate-limit store's circuit breaker: 1 for its current state (closed, open, half_open)",
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const now = circuit();
        for (const state of states) gauge.set({ state }, state === now ? 1 : 0);
      },
    });
  }
  const queries = new Histogram({
    name: 'cadre_db_query_duration_seconds',
    help: 'Database statements by outcome: count and latency',
    labelNames: ['outcome'],
    buckets: SECONDS,
    registers: [registry],
  });
  const queryOk = queries.labels({ outcome: 'ok' });
  const queryFailed = queries.labels({ outcome: 'error' });
  deps.database.observeQueries((seconds, failed) => (failed ? queryFailed : queryOk).observe(seconds));

  const cache = fastCounter(registry, {
    name: 'cadre_registry_cache_events_total',
    help: 'Registry read cache: hits, misses, evictions, invalidations received',
    label: 'event',
    values: ['hit', 'miss', 'eviction', 'invalidation'] as const,
  });
  const keyCache = fastCounter(registry, {
    name: 'cadre_api_key_cache_total',
    help: 'API-key verifications answered from the per-instance cache (hit) or the database (miss)',
    label: 'result',
    values: ['hit', 'miss'] as const,
  });
  const catalogReads = fastCounterBy(registry, {
    name: 'cadre_mcp_catalog_reads_total',
    help: "MCP catalog reads answered (the v0.1 face) by route pattern and where the answer came from: this instance's cache or the database",
    labels: ['route', 'answer'],
    values: ['cache', 'database'] as const,
  });
  const providerCalls = new Histogram({
    name: 'cadre_provider_call_duration_seconds',
    help: 'Calls to outside providers (billing, OAuth) by provider, operation and outcome',
    labelNames: ['provider', 'operation', 'outcome'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const webhookAttempts = new Counter({
    name: 'cadre_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome: succeeded (2xx), http_error, timeout, network_error, refused (unsafe target)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const webhookFailures = new Counter({
    name: 'cadre_webhook_deliveries_failed_total',
    help: 'Webhook deliveries given up: retries spent over three days, or the endpoint answered 410 Gone',
    registers: [registry],
  });
  const webhookDisabled = new Counter({
    name: 'cadre_webhook_endpoints_disabled_total',
    help: 'Webhook endpoints Cadre disabled, by reason: gone (410) or failing (three days of failures)',
    labelNames: ['reason'],
    registers: [registry],
  });
  let queueLag: (() => Promise<number>) | undefined;
  new Gauge({
    name: 'cadre_webhook_queue_lag_seconds',
    help: 'How long the oldest due webhook delivery has waited to be sent (0 when none is due)',
    registers: [registry],
    async collect() {
      this.set(queueLag ? await queueLag() : 0);
    },
  });

  const requestStep: ResponseStep = (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeConfig.url;
    const status = reply.statusCode;
    // Requests without a route (404s) have no config of their own: one owner for all of them.
    requests.observe(
      route ? request.routeConfig : UNMATCHED,
      request.method,
      status,
      reply.elapsedTime / 1000,
      (statusClass) => ({
        face: faceOf(route ?? ''),
        route: route ?? 'unmatched',
        method: request.method,
        status: statusClass,
      }),
    );
    if (status === 429 || status === 503) {
      const error = request.answeredError;
      refusals.inc({
        status: String(status),
        code: error?.code ?? 'unknown',
        cause: typeof error?.cause === 'string' ? error.cause : callerClass(request),
      });
    }
  };

  return {
    enabled: true,
    requestStep,
    registryCache: {
      hit: cache.hit,
      miss: cache.miss,
      evicted: cache.eviction,
      invalidated: cache.invalidation,
    },
    apiKeyCache: { hit: keyCache.hit, miss: keyCache.miss },
    mcpCatalogReads: { read: catalogReads },
    providerCall: async (provider, operation, call) => {
      const started = performance.now();
      let outcome = 'error';
      try {
        const result = await call();
        outcome = 'ok';
        return result;
      } finally {
        providerCalls.observe({ provider, operation, outcome }, (performance.now() - started) / 1000);
      }
    },
    webhookDeliveries: {
      attempt: (outcome) => webhookAttempts.inc({ outcome }),
      gaveUp: () => webhookFailures.inc(),
      endpointDisabled: (reason) => webhookDisabled.inc({ reason }),
    },
    webhookQueueLag: (source) => {
      queueLag = source;
    },
    render: async () => ({ body: await registry.metrics(), contentType: registry.contentType }),
  };
}

/** Who a 429 without a more precise cause refused: the rate-limit class of its caller. */
function callerClass(request: FastifyRequest): string {
  const read = request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS';
  return `${request.principal ? 'credential' : 'anonymous'}_${read ? 'read' : 'write'}`;
}
