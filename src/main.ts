import type { Server } from 'node:http';
import { resolve } from 'node:path';
import type { Server as TlsServer } from 'node:tls';
import pino from 'pino';
import { buildApp } from './app.js';
import {
  bootstrapOwnerEmail,
  bootstrapPath,
  loadOrCreateAdminToken,
  seedDemoOrganization,
} from './bootstrap.js';
import { InvalidEnvironmentError, parseEnv } from './config/env.js';
import { openDatabase } from './db/client.js';
import { connectWithBackoff } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { createBatchedDestination, createLogger, createPrettyDestination } from './http/logger.js';
import { createRedisStore } from './http/rate-limit/redis-store.js';
import { readTlsCredentials, reloadTlsOnSighup, TlsFilesError } from './http/tls.js';
import { DataDirLockedError, lockDataDir } from './lib/data-dir-lock.js';
import { parseKeyRing } from './lib/key-ring.js';
import { LOOPBACK_ALLOWANCE, NO_ALLOWANCE } from './lib/outbound/address-policy.js';
import { checkPortFree, PortUnavailableError } from './lib/port-check.js';
import { makePrivateDataDir, tighten } from './lib/private-dir.js';
import {
  createPlanCatalogue,
  describePlansFileProblem,
  readPlansFile,
  reloadPlansOnSighup,
} from './modules/billing/index.js';
import { loadOrCreateKeyRing } from './modules/key-rotation/index.js';
import { startMetricsServer } from './modules/metrics/index.js';
import { startupBanner } from './startup-banner.js';

const env = loadEnv();
const plans = loadPlans();
// Buffered stdout: a write per log line costs more than the request it describes. Flushed at least every
// 200 ms (log lines stay timely), right after start-up, and on exit.
// On a terminal, readable lines (CADRE_LOG_FORMAT=auto); JSON lines for a file, a pipe or a log collector.
const prettyLogs =
  env.CADRE_LOG_FORMAT === 'pretty' || (env.CADRE_LOG_FORMAT === 'auto' && process.stdout.isTTY === true);
const logDestination = createBatchedDestination(
  prettyLogs ? createPrettyDestination() : pino.destination({ sync: false }),
);
const log = createLogger(env.CADRE_LOG_LEVEL, logDestination);
process.on('exit', () => logDestination.flushSync());
const embedded = !env.DATABASE_URL;
const dataDir = resolve(env.CADRE_DATA_DIR);

async function main(): Promise<void> {
  // A certificate that cannot be served refuses the start before anything else, like a taken port.
  const tls = env.tls && { credentials: readTlsCredentials(env.tls), http2: env.tls.http2 };
  // Before the database is opened: a server that cannot serve, or a second server on the same embedded
  // data directory, must not touch the data (docs/operations.md, "One server per data directory").
  await checkPortFree(env.HOST, env.PORT);
  if (embedded) {
    makePrivateDataDir(dataDir);
    await lockDataDir(dataDir);
  }
  const database = await connectWithBackoff(
    () =>
      openDatabase({
        url: env.DATABASE_URL,
        dataDir: embedded ? resolve(dataDir, 'pgdata') : undefined,
        poolSize: env.CADRE_DB_POOL_SIZE,
        onError: (error) => log.warn({ err: error }, 'database connection error'),
      }),
    log,
  );
  if (embedded) tighten(dataDir);
  const applied = await migrate(database);
  if (applied.length) log.info({ migrations: applied }, 'migrations applied');

  const adminToken =
    env.CADRE_ADMIN_TOKEN ??
    (embedded && env.CADRE_BOOTSTRAP === 'auto' ? loadOrCreateAdminToken(dataDir) : undefined);
  const keyRing = env.CADRE_ENCRYPTION_KEYS
    ? parseKeyRing(env.CADRE_ENCRYPTION_KEYS)
    : embedded
      ? loadOrCreateKeyRing(dataDir)
      : undefined;
  if (!keyRing) log.warn('CADRE_ENCRYPTION_KEYS is not set: OAuth integrations and connections answer 503');
  let redisWarned = 0;
  const rateLimitStore = env.REDIS_URL
    ? createRedisStore({
        url: env.REDIS_URL,
        onError: (error) => {
          // ioredis reports every failed reconnection; one line per 10 s is enough.
          if (Date.now() - redisWarned < 10_000) return;
          redisWarned = Date.now();
          log.warn({ err: error }, 'redis error (rate limits fail open while it lasts)');
        },
        onCircuitChange: (state) => {
          if (state === 'open') {
            log.warn(
              { circuit: state },
              'redis circuit open: rate limits fail open at once for 5 s, then one probe',
            );
          } else if (state === 'closed') {
            log.info({ circuit: state }, 'redis circuit closed: rate limits are counted again');
          }
        },
      })
    : undefined;
  const trustProxy = env.CADRE_TRUST_PROXY === 'false' ? undefined : env.CADRE_TRUST_PROXY;
  const { app, context } = await buildApp({
    database,
    ...(embedded && env.CADRE_BOOTSTRAP === 'auto' ? { bootstrapFile: bootstrapPath(dataDir) } : {}),
    logger: log,
    adminToken,
    keyRing,
    publicUrl: env.CADRE_PUBLIC_URL,
    consoleUrl: env.CADRE_CONSOLE_URL,
    smtp: env.CADRE_SMTP_URL ? { url: env.CADRE_SMTP_URL, from: env.CADRE_SMTP_FROM } : undefined,
    allowedReturnOrigins: env.CADRE_ALLOWED_RETURN_ORIGINS,
    oauthHttp: { allowInsecureRequests: env.allowHttpLoopbackProviders },
    bodyLimitBytes: env.CADRE_BODY_LIMIT_BYTES,
    lastUsedFlushMs: env.CADRE_LAST_USED_FLUSH_MS,
    logRequests: env.CADRE_LOG_REQUESTS,
    sessionTtlMs: env.CADRE_SESSION_TTL_SECONDS * 1000,
    loginLimits: {
      perAccount: env.CADRE_LOGIN_MAX_FAILURES_PER_ACCOUNT,
      perAccountAllAddresses: env.CADRE_LOGIN_MAX_FAILURES_PER_ACCOUNT_ALL_ADDRESSES,
      perIp: env.CADRE_LOGIN_MAX_ATTEMPTS_PER_IP,
      windowMs: env.CADRE_LOGIN_WINDOW_SECONDS * 1000,
    },
    billing: plans ? { ...env.billing, plans } : env.billing,
    registryCacheEntries: env.CADRE_REGISTRY_CACHE_ENTRIES,
    checkResponses: env.CADRE_CHECK_RESPONSES,
    baseSkillNames: env.CADRE_BASE_SKILL_NAMES,
    publishPolicyDefault: env.CADRE_PUBLISH_POLICY_DEFAULT,
    webhooks: {
      allowedPrivateHosts: env.webhookPrivateTargets,
      worker: { leaseMs: env.CADRE_WEBHOOKS_LEASE_SECONDS * 1000 },
    },
    sso: { allowedPrivateHosts: env.ssoPrivateTargets },
    domains: {
      proof: {
        dnsServers: env.CADRE_DNS_SERVERS,
        allowance: env.allowHttpLoopbackProviders ? LOOPBACK_ALLOWANCE : NO_ALLOWANCE,
      },
      recheckAfterMs: env.CADRE_DOMAIN_RECHECK_SECONDS * 1000,
    },
    ...(rateLimitStore ? { rateLimitStore } : {}),
    rateLimits: {
      enabled: env.CADRE_RATE_LIMITS === 'on',
      windowMs: env.CADRE_RATE_LIMIT_WINDOW_S * 1000,
      read: env.CADRE_RATE_LIMIT_READ,
      write: env.CADRE_RATE_LIMIT_WRITE,
      anonymousRead: env.CADRE_RATE_LIMIT_ANONYMOUS_READ,
      anonymousWrite: env.CADRE_RATE_LIMIT_ANONYMOUS_WRITE,
      authFailures: env.CADRE_RATE_LIMIT_AUTH_FAILURES,
      organizationMultiple: env.CADRE_RATE_LIMIT_ORGANIZATION_MULTIPLE,
      scimRead: env.CADRE_RATE_LIMIT_SCIM_READ,
      scimWrite: env.CADRE_RATE_LIMIT_SCIM_WRITE,
      ssoStarts: env.CADRE_RATE_LIMIT_SSO_STARTS,
    },
    concurrency: {
      enabled: env.CADRE_RATE_LIMITS === 'on',
      perCredential: env.CADRE_CONCURRENCY_PER_CREDENTIAL,
      perOrganization: env.CADRE_CONCURRENCY_PER_ORGANIZATION,
      queueMs: env.CADRE_CONCURRENCY_QUEUE_MS,
      // Writes in flight, about as many as the database runs at once: the embedded database runs one
      // statement (or transaction) at a time, a server database as many as its pool.
      capacity: env.CADRE_CONCURRENCY_CAPACITY ?? (embedded ? 2 : env.CADRE_DB_POOL_SIZE),
      reserved: env.CADRE_CONCURRENCY_RESERVED,
    },
    foreignResources: {
      limit: env.CADRE_FOREIGN_RESOURCE_LIMIT,
      windowMs: env.CADRE_FOREIGN_RESOURCE_WINDOW_S * 1000,
    },
    overload: {
      eventLoopDelayMs: env.CADRE_OVERLOAD_EVENT_LOOP_DELAY_MS,
      heapRatio: env.CADRE_OVERLOAD_HEAP_RATIO,
      dbWaitingMax: env.CADRE_OVERLOAD_DB_WAITING,
      requestDeadlineMs: env.CADRE_REQUEST_DEADLINE_MS,
    },
    metrics: {
      enabled: env.CADRE_METRICS === 'on',
      token: env.CADRE_METRICS_TOKEN,
      separatePort: env.CADRE_METRICS_PORT !== undefined,
      processMetrics: true,
    },
    timeouts: {
      headersMs: env.CADRE_HEADERS_TIMEOUT_MS,
      requestMs: env.CADRE_REQUEST_TIMEOUT_MS,
      keepAliveMs: env.CADRE_KEEP_ALIVE_TIMEOUT_MS,
    },
    ...(trustProxy
      ? { trustProxy: trustProxy === 'true' ? true : trustProxy.split(',').map((item) => item.trim()) }
      : {}),
    ...(tls ? { tls } : {}),
  });
  // With TLS, Fastify made an HTTPS or HTTP/2 secure server (App is typed for the plain HTTP one).
  if (env.tls) reloadTlsOnSighup(app.server as unknown as TlsServer, env.tls, log);
  if (plans && env.CADRE_PLANS_FILE) {
    log.info({ plans: plans.list().map((plan) => plan.key) }, `plan catalogue from ${env.CADRE_PLANS_FILE}`);
    reloadPlansOnSighup(env.CADRE_PLANS_FILE, plans, log);
  }
  if (context.billing.definition.testMode) {
    log.warn(
      `billing runs in test mode (CADRE_BILLING_PROVIDER=${context.billing.definition.id}): paid plans are activated without payment`,
    );
  }
  if (embedded && env.CADRE_BOOTSTRAP === 'auto') {
    const path = await seedDemoOrganization(context, dataDir);
    log.info(
      { path },
      'bootstrap credentials (admin token, demo owner API key, console password) are in this file',
    );
  }

  let metricsServer: Server | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => {
      log.error('shutdown timed out; exiting');
      process.exit(1);
    }, env.CADRE_SHUTDOWN_DRAIN_DELAY_MS + env.CADRE_SHUTDOWN_TIMEOUT_MS);
    force.unref();
    if (env.CADRE_SHUTDOWN_DRAIN_DELAY_MS > 0) {
      context.health.markDraining();
      log.info({ signal, delayMs: env.CADRE_SHUTDOWN_DRAIN_DELAY_MS }, 'shutting down: /readyz now 503');
      await new Promise((resolve) => setTimeout(resolve, env.CADRE_SHUTDOWN_DRAIN_DELAY_MS));
    }
    log.info({ signal }, 'shutting down: draining in-flight requests');
    metricsServer?.close();
    await app.close();
    await rateLimitStore?.close();
    await database.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const address = await app.listen({ host: env.HOST, port: env.PORT });
  if (env.CADRE_METRICS === 'on' && env.CADRE_METRICS_PORT !== undefined) {
    metricsServer = await startMetricsServer(context.metrics, {
      host: env.HOST,
      port: env.CADRE_METRICS_PORT,
      token: env.CADRE_METRICS_TOKEN,
    });
    log.info({ port: env.CADRE_METRICS_PORT }, 'metrics served on their own port');
  }
  log.info(
    {
      address,
      database: database.kind,
      admin: Boolean(adminToken),
      ...(tls ? { http2: tls.http2, certificate: tls.credentials.certificate } : {}),
    },
    `Cadre listening on ${address}`,
  );
  // The quick start (embedded database, demo organization) and CADRE_DEV=1 say in words where to go next.
  const bootstrapFile = embedded && env.CADRE_BOOTSTRAP === 'auto' ? bootstrapPath(dataDir) : undefined;
  if (env.CADRE_DEV || bootstrapFile) {
    log.info(
      startupBanner({
        dev: env.CADRE_DEV,
        consoleUrl: env.CADRE_CONSOLE_URL ?? address,
        bootstrap: bootstrapFile
          ? { path: bootstrapFile, ownerEmail: bootstrapOwnerEmail(bootstrapFile) }
          : undefined,
      }),
    );
  }
  logDestination.flush();
}

main().catch((error: unknown) => {
  if (
    error instanceof DataDirLockedError ||
    error instanceof PortUnavailableError ||
    error instanceof TlsFilesError
  )
    log.fatal(`start-up refused: ${error.message}`);
  else log.fatal({ err: error }, 'start-up failed');
  process.exit(1);
});

/** The environment, or a refusal that says what to fix: one plain line per problem on stderr, no stack trace. */
function loadEnv() {
  try {
    return parseEnv();
  } catch (error) {
    if (!(error instanceof InvalidEnvironmentError)) throw error;
    // Plain lines, like the CLI's diagnostics (no logger exists yet, and a JSON line would escape them).
    const count = error.problems.length === 1 ? 'a problem' : `${error.problems.length} problems`;
    process.stderr.write(
      `${error.problems.map((problem) => `error: ${problem}\n`).join('')}` +
        `start-up refused: ${count} in the environment (README.md, "Configuration", lists every variable)\n`,
    );
    process.exit(1);
  }
}

/**
 * CADRE_PLANS_FILE's catalogue, checked before anything is touched: its problems as `cadre config validate`
 * shows a cadre.toml's (line, column, hint), then the refusal. Unset: the built-in catalogue.
 */
function loadPlans() {
  if (!env.CADRE_PLANS_FILE) return undefined;
  const result = readPlansFile(env.CADRE_PLANS_FILE);
  if (result.ok) return createPlanCatalogue(result.plans);
  process.stderr.write(
    `${describePlansFileProblem(env.CADRE_PLANS_FILE, result)}\nstart-up refused: the plan catalogue (CADRE_PLANS_FILE) is invalid\n`,
  );
  process.exit(1);
}
