import { type IntervalHistogram, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/client.js';
import { createDeadlineList, type DeadlineNode } from './deadline-list.js';
import { type ApiError, serviceUnavailable } from './errors.js';
import type { RequestStep, ResponseStep } from './pipeline.js';

export interface OverloadOptions {
  /** Shed while the event loop's worst lag over the last sample exceeds this. */
  eventLoopDelayMs: number;
  /** Shed while heap used / heap limit exceeds this. */
  heapRatio: number;
  /** Shed while more queries than this wait for a pool connection. */
  dbWaitingMax: number;
  /** Every answer arrives within this; past it, 503. */
  requestDeadlineMs: number;
  sampleIntervalMs: number;
  /** While the database is down, how often it is probed. */
  probeIntervalMs: number;
}

export const DEFAULT_OVERLOAD: OverloadOptions = {
  eventLoopDelayMs: 1_000,
  heapRatio: 0.95,
  dbWaitingMax: 100,
  requestDeadlineMs: 15_000,
  sampleIntervalMs: 500,
  probeIntervalMs: 1_000,
};

type HealthStatus =
  | { ok: true }
  | {
      ok: false;
      reason: string;
      retryAfterS: number;
      cause: 'database_down' | 'database_pool' | 'event_loop' | 'memory';
    };

/** Why this instance should not take work right now, from cheap signals sampled in the background. */
export interface HealthMonitor {
  status(): HealthStatus;
  /**
   * A request failed with a connection-level error. A probe confirms the database is unreachable (the same
   * errno could come from another network peer); then every request is shed until a probe gets through.
   */
  reportDatabaseUnavailable(): void;
  /** The event loop's worst delay over the last sample (ms). */
  eventLoopDelayMs(): number;
  /**
   * Shutdown has begun: /readyz answers 503 so a load balancer stops routing here, while requests are still
   * served normally until the process closes (CADRE_SHUTDOWN_DRAIN_DELAY_MS later).
   */
  markDraining(): void;
  isDraining(): boolean;
  start(): void;
  stop(): void;
}

export function createHealthMonitor(deps: {
  database: Database;
  options: OverloadOptions;
  log: () => FastifyBaseLogger;
}): HealthMonitor {
  const { database, options } = deps;
  let histogram: IntervalHistogram | undefined;
  let sampler: NodeJS.Timeout | undefined;
  let prober: NodeJS.Timeout | undefined;
  let eventLoopDelayMs = 0;
  let heapRatio = 0;
  let databaseDown = false;
  let draining = false;
  let probing = false;
  let confirming = false;
  const heapLimit = getHeapStatistics().heap_size_limit;

  let lastSampleAt = performance.now();
  const sample = () => {
    // The histogram may not have recorded a long block yet when this tick runs right after it; this tick's
    // own lateness shows it at once.
    const now = performance.now();
    const late = Math.max(0, now - lastSampleAt - options.sampleIntervalMs);
    lastSampleAt = now;
    if (histogram) {
      eventLoopDelayMs = Math.max(histogram.max / 1e6, late);
      histogram.reset();
    } else {
      eventLoopDelayMs = late;
    }
    heapRatio = process.memoryUsage().heapUsed / heapLimit;
  };

  const probe = async () => {
    if (probing) return;
    probing = true;
    try {
      await withTimeout(database.db.execute(sql`SELECT 1`), 2_000);
      databaseDown = false;
      clearInterval(prober);
      prober = undefined;
      deps.log().info('database reachable again; taking requests');
    } catch {
      // Still down; the next tick tries again.
    } finally {
      probing = false;
    }
  };

  return {
    status: () => {
      if (databaseDown)
        return { ok: false, reason: 'The database is unreachable', retryAfterS: 5, cause: 'database_down' };
      if (database.waitingCount() > options.dbWaitingMax) {
        return {
          ok: false,
          reason: 'All database connections are busy',
          retryAfterS: 2,
          cause: 'database_pool',
        };
      }
      if (eventLoopDelayMs > options.eventLoopDelayMs) {
        return { ok: false, reason: 'The server is overloaded', retryAfterS: 2, cause: 'event_loop' };
      }
      if (heapRatio > options.heapRatio) {
        return { ok: false, reason: 'The server is low on memory', retryAfterS: 5, cause: 'memory' };
      }
      return { ok: true };
    },
    eventLoopDelayMs: () => eventLoopDelayMs,
    markDraining: () => {
      draining = true;
    },
    isDraining: () => draining,
    reportDatabaseUnavailable: () => {
      if (prober || confirming) return;
      confirming = true;
      withTimeout(database.db.execute(sql`SELECT 1`), 2_000).then(
        () => {
          confirming = false;
        },
        () => {
          confirming = false;
          if (prober) return;
          databaseDown = true;
          deps.log().warn('database unreachable; answering 503 until it is back');
          prober = setInterval(() => void probe(), options.probeIntervalMs);
          prober.unref();
        },
      );
    },
    start: () => {
      histogram = monitorEventLoopDelay({ resolution: 10 });
      histogram.enable();
      lastSampleAt = performance.now();
      sample();
      sampler = setInterval(sample, options.sampleIntervalMs);
      sampler.unref();
    },
    stop: () => {
      histogram?.disable();
      clearInterval(sampler);
      clearInterval(prober);
    },
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
    promise.catch(() => undefined);
  }
}

const OK: HealthStatus = { ok: true };

export type Overloaded = Extract<HealthStatus, { ok: false }>;

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The instance is overloaded and a later step (the fair share, after authentication) decides whether this
     * request's tenant is among the heaviest, which are shed first.
     */
    overloaded: Overloaded | null;
    /** The deadline passed and a 503 went out: whatever the handler produces later is dropped. */
    timedOut: boolean;
    deadlineNode: DeadlineNode<FastifyReply> | null;
  }
}

/**
 * Shed load with a fast 503 while the monitor says so, and answer 503 at the deadline if nothing else has.
 * Returns the pipeline steps (first of every request: they run before authentication, which may query the
 * database). Must be called before any route is added, so the handler wrapper sees them all.
 */
export function registerOverloadProtection(
  app: FastifyInstance,
  deps: {
    monitor: HealthMonitor;
    deadlineMs: number;
    send: (request: FastifyRequest, reply: FastifyReply, error: ApiError) => unknown;
    /**
     * A later step sheds by tenant (the concurrency limit's fair share): leave the decision to it, except
     * when the database is down, which no tenant can be served through.
     */
    shedByTenant: boolean;
  },
): {
  onRequest: RequestStep;
  onResponse: ResponseStep;
  shedUnattributed: (authenticate: RequestStep) => RequestStep;
} {
  app.decorateRequest('timedOut', false);
  app.decorateRequest('overloaded', null);
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // Unanswered requests in arrival order (so in deadline order): one timer answers the expired ones at the
  // head. A linked list, each request holding its node: joining and leaving cost no timer, listener or
  // hash (a timer and a 'close' listener per request cost more than a cached read's own work).
  const inFlight = createDeadlineList<FastifyReply>();
  const sweeper = setInterval(
    () => {
      for (const reply of inFlight.expired(performance.now())) {
        if (reply.sent || reply.raw.destroyed) continue;
        reply.request.timedOut = true;
        reply.log.warn({ deadlineMs: deps.deadlineMs }, 'request passed its deadline; answered 503');
        deps.send(
          reply.request,
          reply,
          serviceUnavailable('The request did not complete in time', 5, 'deadline'),
        );
      }
    },
    Math.max(10, Math.min(1_000, Math.floor(deps.deadlineMs / 10))),
  );
  sweeper.unref();
  app.addHook('onClose', (_instance, done) => {
    clearInterval(sweeper);
    done();
  });
  app.decorateRequest('deadlineNode', null);
  const onResponse: ResponseStep = (request) => {
    if (request.deadlineNode) inFlight.remove(request.deadlineNode);
  };
  const onRequest: RequestStep = (request, reply) => {
    request.deadlineNode = inFlight.add(reply, performance.now() + deps.deadlineMs);
    if (closing) {
      // Draining for shutdown: in-flight requests finish, new ones go to another instance.
      return serviceUnavailable('The server is shutting down', 1, 'draining', { Connection: 'close' });
    }
    const health = request.routeConfig.shed === false ? OK : deps.monitor.status();
    if (health.ok) return undefined;
    if (deps.shedByTenant && health.cause !== 'database_down') {
      request.overloaded = health;
      return undefined;
    }
    return serviceUnavailable(health.reason, health.retryAfterS, health.cause);
  };
  // A handler that finishes after its deadline answer must not try to answer again.
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function guarded(request, reply) {
      if (request.timedOut) return undefined;
      let result: unknown;
      try {
        result = handler.call(this, request, reply);
      } catch (error) {
        if (request.timedOut) return undefined;
        throw error;
      }
      if (!(result instanceof Promise)) return request.timedOut ? undefined : result;
      return result.then(
        (value: unknown) => (request.timedOut ? undefined : value),
        (error: unknown) => {
          if (request.timedOut) return undefined;
          throw error;
        },
      );
    };
  });
  // While overloaded, a request whose credentials do not authenticate names no tenant to weigh: it is shed,
  // as it would have been before tenants were weighed, rather than answered 401.
  const shedUnattributed =
    (authenticate: RequestStep): RequestStep =>
    (request, reply) => {
      const overloaded = request.overloaded;
      if (!overloaded) return authenticate(request, reply);
      const shed = (error: ApiError | undefined) =>
        error ? serviceUnavailable(overloaded.reason, overloaded.retryAfterS, overloaded.cause) : undefined;
      const result = authenticate(request, reply);
      return result instanceof Promise ? result.then(shed) : shed(result);
    };
  return { onRequest, onResponse, shedUnattributed };
}
