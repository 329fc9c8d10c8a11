import { resolve } from 'node:path';
import { buildApp } from './app.js';
import { loadOrCreateAdminToken, seedDemoOrganization } from './bootstrap.js';
import { parseEnv } from './config/env.js';
import { openDatabase } from './db/client.js';
import { connectWithBackoff } from './db/connect.js';
import { migrate } from './db/migrate.js';
import { createLogger } from './http/logger.js';

const env = parseEnv();
const log = createLogger(env.CADRE_LOG_LEVEL);
const embedded = !env.DATABASE_URL;
const dataDir = resolve(env.CADRE_DATA_DIR);

async function main(): Promise<void> {
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
  const applied = await migrate(database);
  if (applied.length) log.info({ migrations: applied }, 'migrations applied');

  const adminToken =
    env.CADRE_ADMIN_TOKEN ??
    (embedded && env.CADRE_BOOTSTRAP === 'auto' ? loadOrCreateAdminToken(dataDir) : undefined);
  const { app, context } = await buildApp({
    database,
    logger: log,
    adminToken,
    bodyLimitBytes: env.CADRE_BODY_LIMIT_BYTES,
    lastUsedFlushMs: env.CADRE_LAST_USED_FLUSH_MS,
    registryCacheEntries: env.CADRE_REGISTRY_CACHE_ENTRIES,
  });
  if (embedded && env.CADRE_BOOTSTRAP === 'auto') {
    const path = await seedDemoOrganization(context, dataDir);
    log.info({ path }, 'bootstrap credentials (admin token, demo owner API key) are in this file');
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => {
      log.error('shutdown timed out; exiting');
      process.exit(1);
    }, env.CADRE_SHUTDOWN_TIMEOUT_MS);
    force.unref();
    await app.close();
    await database.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const address = await app.listen({ host: env.HOST, port: env.PORT });
  log.info({ address, database: database.kind, admin: Boolean(adminToken) }, `Cadre listening on ${address}`);
}

main().catch((error: unknown) => {
  log.fatal({ err: error }, 'start-up failed');
  process.exit(1);
});
