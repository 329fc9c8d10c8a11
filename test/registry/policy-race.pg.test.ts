import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { concurrentFirstPolicyChanges } from './helpers.js';

// The first changes of a publish policy on PostgreSQL, where the two transactions really run at once (a pool of
// connections): with no row to lock yet, both read the open policy and the second write lost the first's rule
// (13 runs of 15). test/registry/publish-policy.test.ts runs the same on PGlite.

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe('two first changes of a publish policy at once, on PostgreSQL', () => {
  it('compose: no rule answered 200 is lost', async () => {
    const seen = await concurrentFirstPolicyChanges(server, 10);
    expect(seen).toHaveLength(10);
  });
});
