import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, screenshots } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = (page: Page) => page.locator('main h1').first();
const PHONE = { width: 390, height: 800 };

async function signIn(page: Page, next: string) {
  await page.goto(`${server.url}/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(`owner@${org.slug}.test`);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('console polish in the browser', () => {
  it('folds the navigation into a menu button on a phone, which closes on navigation and on Escape', async () => {
    const { page, problems, close } = await openConsole(browser, { viewport: PHONE });
    await signIn(page, '/home');
    await expect.poll(() => heading(page).textContent()).toBe(org.slug);
    const menu = page.getByRole('button', { name: 'Menu' });
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    await screenshots(page, 'menu-closed');

    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await nav.isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: `${import.meta.dirname}/screenshots/menu-open-phone.png` });
    await expectAccessible(page, 'the open menu');

    // Following a link closes the menu.
    await nav.getByRole('link', { name: 'API keys' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('API keys');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);

    // Escape closes it and gives focus back to the button.
    await menu.click();
    expect(await nav.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);
    expect(await menu.evaluate((button) => button === button.ownerDocument.activeElement)).toBe(true);

    // At 1280 px there is no menu button: the navigation is one row.
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await menu.isVisible()).toBe(false);
    expect(await nav.isVisible()).toBe(true);
    const tops = await nav
      .locator('a')
      .evaluateAll((links) => links.map((a) => a.getBoundingClientRect().top));
    expect(new Set(tops).size).toBe(1);
    expect(problems).toEqual([]);
    await close();
  });
});
