import { type AppContext, type AppDeps, buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/client.js';
import type { App } from '../../src/http/route-kit.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { type HttpResult, http, type RequestOptions } from './http.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnopqrstuvwxyz';

export interface TestServer {
  url: string;
  app: App;
  context: AppContext;
  db: TestDatabase;
  request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: RequestOptions,
  ): Promise<HttpResult<T>>;
  admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<HttpResult<T>>;
  close(): Promise<void>;
}

export interface StartOptions extends Partial<Omit<AppDeps, 'database'>> {
  /** Serve from an existing database (a second instance); it is not dropped on close. */
  database?: Database;
}

/** A real Cadre on 127.0.0.1 with its own database. */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const owned = options.database ? undefined : await createTestDatabase();
  const database = options.database ?? owned!.database;
  const { app, context } = await buildApp({
    adminToken: ADMIN_TOKEN,
    lastUsedFlushMs: 50,
    // Every answer the suite produces is held to its schema (src/http/serializer.ts).
    checkResponses: true,
    ...options,
    // Test machines stall (two cores, PGlite compiling WebAssembly next door): a 1 s event-loop lag there is
    // not overload. Overload tests pass their own thresholds.
    overload: { eventLoopDelayMs: 60_000, ...options.overload },
    database,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    app,
    context,
    db: owned ?? ({ database, url: undefined } as TestDatabase),
    request: (method, path, requestOptions) => http(url, method, path, requestOptions),
    admin: (method, path, body) =>
      http(url, method, path, { key: ADMIN_TOKEN, ...(body === undefined ? {} : { body }) }),
    close: async () => {
      // A client still mid-request (the fuzzer's oversized bodies) must not hold a test's teardown.
      const force = setTimeout(() => app.server.closeAllConnections(), 2_000);
      await app.close();
      clearTimeout(force);
      await owned?.drop();
    },
  };
}
