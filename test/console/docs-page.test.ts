import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { startServer, type TestServer } from '../support/server.js';
import { openConsole } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;

beforeAll(async () => {
  chromium = await launchChromium();
  server = await startServer();
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

describe('the API reference at /docs', () => {
  it.each(['/docs/', '/docs/static/index.html', '/docs/static/swagger-initializer.js'])(
    '%s carries a Content-Security-Policy as strict as the console’s: never framed, nothing from elsewhere',
    async (path) => {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      const policy = res.headers.get('content-security-policy') ?? '';
      const directives = new Map(
        policy.split(';').map((directive) => {
          const [name = '', ...sources] = directive.trim().split(/\s+/);
          return [name, sources] as const;
        }),
      );
      expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
      expect(directives.get('default-src')).toEqual(["'self'"]);
      expect(directives.get('object-src')).toEqual(["'none'"]);
      expect(directives.get('base-uri')).toEqual(["'none'"]);
      expect(directives.get('script-src')?.filter((source) => !source.startsWith("'sha256-"))).toEqual([
        "'self'",
      ]);
      expect(policy).not.toMatch(/https:|unsafe-inline|unsafe-eval|validator\.swagger\.io/);
    },
  );

  it('still works in Chromium under that policy: the operations are listed and nothing is refused', async () => {
    const { page, problems, close } = await openConsole(chromium!.browser);
    try {
      await page.goto(`${server.url}/docs/`);
      await expect.poll(() => page.locator('.opblock').count(), { timeout: 15_000 }).toBeGreaterThan(10);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
