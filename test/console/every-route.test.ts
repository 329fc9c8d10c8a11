import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_PAGES } from '../../src/modules/console/console-pages.js';
import { startServer, type TestServer } from '../support/server.js';

// Every page of the console answers 200 on a direct load (a monitor or link checker sees what a browser
// sees). The console's router takes its paths from CONSOLE_PAGES, and the server answers those same paths:
// one list, so a new page is served the day it is routed (console/src/main.tsx does not compile otherwise).
const routerPaths = Object.values(CONSOLE_PAGES);

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

describe("the console's routes", () => {
  it("are the router's own: its paths come from the list the server serves", () => {
    const router = readFileSync(join(import.meta.dirname, '../../console/src/main.tsx'), 'utf8');
    // Only the catch-all is written in the router; every other path is CONSOLE_PAGES'.
    expect([...router.matchAll(/\bpath: '([^']+)'/g)].map((match) => match[1])).toEqual(['*']);
    expect(router).toContain('path: CONSOLE_PAGES[page as ConsolePage]');
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
