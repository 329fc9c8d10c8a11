import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, published } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;

const LONG_WORD = `https://example.com/${'a-very-long-path-segment'.repeat(12)}`;
const UNBROKEN = 'Supercalifragilistic'.repeat(15);

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  org = await createOrganization(server, 'personal');
  await setPassword(server, org.ownerId);
  await published(
    server,
    org.ownerKey,
    expertBody('long-words', '1.0.0', {
      description: `Reads ${UNBROKEN} and ${LONG_WORD} without breaking the page.`,
      instruction: `Fetch ${LONG_WORD}.\n${UNBROKEN}`,
    }),
  );
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;
const PHONE = { width: 390, height: 800 };
const DESKTOP = { width: 1280, height: 800 };

/** How far the element's content sticks out of it sideways (0 when it wraps inside). */
const overflowOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((element) => element.scrollWidth - element.clientWidth);

describe('console leftovers in the browser', () => {
  it('keeps the desktop header to one row and every entry an owner has in one column under it', async () => {
    const { page, problems, close } = await openConsole(browser, { viewport: DESKTOP });
    await page.goto(`${server.url}/sign-in?next=/members`);
    await page.getByLabel('Email').fill(`owner@${org.slug}.test`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('Members');
    const nav = page.getByRole('navigation', { name: 'Main' });
    // The owner's entries (Audit log and Integrations are permission-bound and load with /api/v1/me).
    await expect.poll(() => nav.getByRole('link', { name: 'Audit log' }).count()).toBe(1);
    const lefts = await nav.locator('a').evaluateAll((all) => all.map((a) => a.getBoundingClientRect().left));
    expect(lefts.length).toBeGreaterThanOrEqual(14);
    expect(new Set(lefts).size).toBe(1);
    const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
    const brand = await box('.brand');
    const account = await box('.account');
    const navBox = await box('.side-nav');
    // One header row: the brand and the account side by side; the navigation under it, on the left.
    expect(Math.abs(brand.y + brand.height / 2 - (account.y + account.height / 2))).toBeLessThan(4);
    const header = await box('.site-header');
    expect(header.height).toBeLessThan(70);
    expect(navBox.y).toBeGreaterThanOrEqual(header.y + header.height - 1);
    // The current page is marked for everyone, not by colour alone.
    expect(await nav.getByRole('link', { name: 'Members' }).getAttribute('aria-current')).toBe('page');
    await screenshots(page, 'header-owner');
    await expectAccessible(page, 'the header with every entry');
    // A phone still folds it all behind Menu.
    await page.setViewportSize(PHONE);
    expect(await nav.isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await close();
  });

  it('offers Retry when a fetch fails, and shows the list once it answers', async () => {
    const { page, close } = await openConsole(browser);
    // The network between the browser and Cadre fails (the request never reaches the server) until the
    // test lets it through; the console's own retries fail too, then the notice offers Retry.
    let failing = true;
    let failed = 0;
    await page.route(
      (url) => url.pathname === '/registry/experts',
      async (route) => {
        if (!failing) return route.continue();
        failed++;
        return route.abort('connectionrefused');
      },
    );
    await page.goto(`${server.url}/`);
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent(), { timeout: 20_000 }).toContain('Cadre could not be reached');
    expect(failed).toBeGreaterThanOrEqual(1);
    const retry = alert.getByRole('button', { name: 'Retry' });
    await screenshots(page, 'registry-fetch-failed');
    await expectAccessible(page, 'a failed fetch with Retry');
    failing = false;
    await retry.click();
    await expect.poll(() => page.locator('.expert-item').count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);
    await close();
  });

  it('says recent times relatively, with the absolute time kept, and older ones as dates', async () => {
    const { page, problems, close } = await openConsole(browser, { viewport: DESKTOP });
    const record = await server.request<{ data: { expert: { updatedAt: string } } }>(
      'GET',
      '/registry/experts/long-words',
    );
    const updatedAt = new Date(record.body.data.expert.updatedAt).getTime();
    const updated = page.locator('.expert-item time').first();

    await page.clock.setFixedTime(updatedAt + 3 * 60_000);
    await page.goto(`${server.url}/?q=long`);
    await expect.poll(() => updated.textContent()).toBe('3 min. ago');
    expect(await updated.getAttribute('dateTime')).toBe(record.body.data.expert.updatedAt);
    expect(await updated.getAttribute('title')).toMatch(/\d{4}/);

    await page.clock.setFixedTime(updatedAt + 26 * 3600_000);
    await page.goto(`${server.url}/?q=long`);
    await expect.poll(() => updated.textContent()).toBe('yesterday');

    await page.clock.setFixedTime(updatedAt + 3 * 86_400_000);
    await page.goto(`${server.url}/?q=long`);
    await expect.poll(() => updated.textContent()).toBe('3 days ago');

    // A week or more: the date itself, the same as the title.
    await page.clock.setFixedTime(updatedAt + 10 * 86_400_000);
    await page.goto(`${server.url}/?q=long`);
    await expect.poll(() => updated.textContent()).toMatch(/\d{4}/);
    expect(await updated.textContent()).toBe(await updated.getAttribute('title'));
    expect(problems).toEqual([]);
    await close();
  });

  it('wraps long unbroken words inside their column at 390 px', async () => {
    const { page, problems, close } = await openConsole(browser, { viewport: PHONE });
    await page.goto(`${server.url}/?q=long`);
    await expect.poll(() => page.locator('.expert-item').count()).toBe(1);
    expect(await overflowOf(page, '.expert-item .description')).toBeLessThanOrEqual(0);
    await page.goto(`${server.url}/experts/long-words`);
    await expect.poll(() => heading(page).textContent()).toBe('long-words v1.0.0');
    expect(await overflowOf(page, '.expert .description')).toBeLessThanOrEqual(0);
    expect(await overflowOf(page, '.instruction')).toBeLessThanOrEqual(0);
    // The whole text is there, wrapped, not cut.
    expect(await page.locator('.expert .description').textContent()).toContain(UNBROKEN);
    const page390 = await overflowOf(page, 'html');
    expect(page390).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${import.meta.dirname}/screenshots/long-words-390.png`, fullPage: true });
    await screenshots(page, 'long-words');
    await expectAccessible(page, 'an Expert with long words');
    expect(problems).toEqual([]);
    await close();
  });
});
