// /openapi.json byte for byte, as the service serves it (admin API included), against the committed copy in
// test/snapshots/openapi.json. It was taken before the module boundaries were moved (issue 41) so a
// refactoring that should change nothing visibly changes nothing; a deliberate API change updates it with
// `npx vitest run test/openapi-snapshot.test.ts -u` and the diff shows in review.
import { expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';

it('serves /openapi.json byte-identical to the committed snapshot', async () => {
  const database = await openDatabase({ dataDir: 'memory://' });
  try {
    await migrate(database);
    const { app } = await buildApp({ database, metrics: { enabled: false }, adminToken: 'x'.repeat(40) });
    try {
      const answer = await app.inject({ method: 'GET', url: '/openapi.json' });
      expect(answer.statusCode).toBe(200);
      await expect(answer.body).toMatchFileSnapshot('./snapshots/openapi.json');
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
});
