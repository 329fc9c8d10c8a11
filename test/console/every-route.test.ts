import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

// Every path of the console's router answers 200 on a direct load (a monitor or link checker sees what a
// browser sees). The paths are read from the router itself, so a new page is covered the day it is added.
const ROUTER = readFileSync(join(import.meta.dirname, '../../console/src/main.tsx'), 'utf8');
const routerPaths = [...ROUTER.matchAll(/\bpath: '([^']+)'/g)]
  .map((match) => match[1]!)
  .filter((p) => p !== '*');

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

describe("the console's routes", () => {
  it('are read from the router (a sanity check of the reading)', () => {
    expect(routerPaths).toContain('/keys');
    expect(routerPaths).toContain('/developers/webhooks/:endpointId');
    expect(routerPaths.length).toBeGreaterThan(15);
  });

  it('each answers 200 with the app shell on a direct load', async () => {
    const failures: string[] = [];
    for (const path of routerPaths) {
      const concrete = path.replace(/:[A-Za-z]+/g, 'x1').replace(/\*$/, '@acme/writer');
      const res = await server.request('GET', concrete, { headers: { accept: 'text/html' } });
      if (res.status !== 200 || !res.text.includes('<div id="root"></div>'))
        failures.push(`${path}: ${res.status}`);
    }
    expect(failures).toEqual([]);
  });
});
