import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_PAGES } from '../../src/modules/console/console-pages.js';
import { startServer, type TestServer } from '../support/server.js';

// Every page of the console answers 200 on a direct load (a monitor or link checker sees what a browser
// sees). The console's router routes exactly CONSOLE_PAGES's paths (console/src/main.tsx does not compile
// otherwise), and the server answers those same paths: a new page is served the day it is routed.
const routerPaths = CONSOLE_PAGES;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

describe("the console's routes", () => {
  it("are the router's own: it checks its paths against the list the server serves", () => {
    const router = readFileSync(join(import.meta.dirname, '../../console/src/main.tsx'), 'utf8');
    // The list's copy the console holds; test/console/api-types.test.ts keeps it equal to CONSOLE_PAGES.
    expect(router).toContain("import type { ConsolePath } from './generated/console-pages.js';");
    expect(router).toMatch(/true satisfies \[\(typeof PAGES\)\[number\]\['path'\]\] extends \[ConsolePath\]/);
    expect(routerPaths).toContain('/developers/webhooks/:endpointId');
  });

  it('answer 404 for any other page a browser asks for', async () => {
    const res = await server.request('GET', '/no-such-page', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(404);
    expect(res.text).toContain('<div id="root"></div>');
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
