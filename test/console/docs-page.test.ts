import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { startServer, type TestServer } from '../support/server.js';
import { expectAccessible, openConsole } from './console-page.js';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

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

  for (const [size, colorScheme] of [
    [DESKTOP, 'light'],
    [DESKTOP, 'dark'],
    [PHONE, 'light'],
    [PHONE, 'dark'],
  ] as const) {
    it(`is Cadre's page and passes axe at ${size.width} px, ${colorScheme}, an operation open too`, {
      timeout: 90_000,
    }, async () => {
      const { page, problems, close } = await openConsole(chromium!.browser, { viewport: size, colorScheme });
      try {
        await page.goto(`${server.url}/docs/`);
        const operations = page.locator('.opblock-summary-control');
        await expect.poll(() => operations.count(), { timeout: 15_000 }).toBeGreaterThan(10);
        expect(await page.title()).toBe('API reference · Cadre');
        const header = page.getByRole('banner');
        expect(await header.getByRole('heading', { level: 1 }).textContent()).toBe('API reference');
        expect(await header.getByRole('link', { name: 'Cadre' }).getAttribute('href')).toBe('/');
        expect(await header.getByRole('link', { name: 'Back to the console' }).getAttribute('href')).toBe(
          '/home',
        );
        // The logo is Cadre's, loaded from Cadre.
        await expect
          .poll(() => header.locator('img').evaluate((img: { naturalWidth: number }) => img.naturalWidth))
          .toBeGreaterThan(0);
        expect(await page.getByRole('main').locator('#swagger-ui').count()).toBe(1);
        // Dark follows the system, as the console does.
        expect(await page.locator('html').getAttribute('class')).toBe(
          colorScheme === 'dark' ? 'dark-mode' : null,
        );
        const what = `/docs at ${size.width} px, ${colorScheme}`;
        await expectAccessible(page, what);
        await operations.first().click();
        await expect.poll(() => page.locator('.opblock.is-open .parameters').count()).toBe(1);
        await page.getByRole('button', { name: 'Try it out' }).first().click();
        await expect.poll(() => page.getByRole('button', { name: 'Execute' }).count()).toBe(1);
        await expectAccessible(page, `${what}, an operation open to try`);
        const sideways = await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
        expect(sideways, what).toBeLessThanOrEqual(0);
        await page.screenshot({
          path: `${import.meta.dirname}/screenshots/docs-${colorScheme}-${size.width}.png`,
        });
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    });
  }

  it('is used by keyboard: the way back first, then each operation opens with Enter', async () => {
    const { page, problems, close } = await openConsole(chromium!.browser, { viewport: DESKTOP });
    try {
      await page.goto(`${server.url}/docs/`);
      await expect.poll(() => page.locator('.opblock').count(), { timeout: 15_000 }).toBeGreaterThan(10);
      const focused = () =>
        page.evaluate(() => {
          const active = (
            globalThis as unknown as {
              document: {
                activeElement: {
                  textContent: string | null;
                  getAttribute(name: string): string | null;
                } | null;
              };
            }
          ).document.activeElement;
          return {
            text: active?.textContent?.trim() ?? '',
            expanded: active?.getAttribute('aria-expanded') ?? null,
          };
        });
      await page.keyboard.press('Tab');
      expect((await focused()).text).toBe('Cadre');
      await page.keyboard.press('Tab');
      expect((await focused()).text).toBe('Back to the console');
      // On to the first operation's toggle (past the document's link, Authorize and the tag's own toggle).
      let presses = 0;
      while ((await focused()).expanded !== 'false' || !(await focused()).text.startsWith('GET')) {
        await page.keyboard.press('Tab');
        presses++;
        expect(presses, 'Tab presses to the first operation').toBeLessThan(12);
      }
      // Visible focus: an outline drawn around the focused toggle.
      const outline = await page.evaluate(() => {
        const doc = globalThis as unknown as {
          document: { activeElement: unknown };
          getComputedStyle(element: unknown): { outlineStyle: string; outlineWidth: string };
        };
        const style = doc.getComputedStyle(doc.document.activeElement);
        return `${style.outlineStyle} ${style.outlineWidth}`;
      });
      expect(outline).not.toMatch(/^none|0px$/);
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await focused()).expanded).toBe('true');
      expect(await page.locator('.opblock.is-open').count()).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
