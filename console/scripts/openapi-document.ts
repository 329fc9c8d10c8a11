// The service's own OpenAPI document, as GET /openapi.json serves it: built from a throwaway in-memory app,
// so it needs no running server. With `adminToken` the admin API is in it (the CLI calls it; the console
// never does).
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';

export async function openApiDocument(
  options: { adminToken?: string } = {},
): Promise<Record<string, unknown>> {
  const database = await openDatabase({ dataDir: 'memory://' });
  try {
    await migrate(database);
    const { app } = await buildApp({ database, metrics: { enabled: false }, ...options });
    try {
      const answer = await app.inject({ method: 'GET', url: '/openapi.json' });
      return answer.json() as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}
