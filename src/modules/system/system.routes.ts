import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { serviceUnavailable } from '../../http/errors.js';
import type { HealthMonitor } from '../../http/overload.js';
import { type App, managementErrors } from '../../http/route-kit.js';

const tags = ['System'];
const READY_TIMEOUT_MS = 2_000;

export function registerSystemRoutes(app: App, database: Database, health: HealthMonitor): void {
  app.get('/healthz', {
    config: { rateLimit: false, shed: false },
    schema: {
      operationId: 'health',
      summary: 'The process is up',
      tags,
      response: { 200: z.object({ status: z.literal('ok') }) },
    },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.get('/readyz', {
    config: { rateLimit: false, shed: false },
    schema: {
      operationId: 'ready',
      summary: 'The service can answer requests (database reachable, not overloaded)',
      tags,
      response: { 200: z.object({ status: z.literal('ready') }), ...managementErrors(503) },
    },
    handler: async () => {
      if (health.isDraining()) throw serviceUnavailable('The server is shutting down', 1, 'draining');
      const status = health.status();
      if (!status.ok) {
        throw serviceUnavailable(status.reason, status.retryAfterS, status.cause);
      }
      const ping = database.db.execute(sql`SELECT 1`);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('database ping timed out')), READY_TIMEOUT_MS);
      });
      try {
        await Promise.race([ping, timeout]);
      } catch {
        ping.catch(() => undefined);
        throw serviceUnavailable('The database is unreachable', 5, 'database_down');
      } finally {
        clearTimeout(timer);
      }
      return { status: 'ready' as const };
    },
  });

  app.get('/openapi.json', { config: { rateLimit: false }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
