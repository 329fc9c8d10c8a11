import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

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

const heading = pageHeading;
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
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);

    // Escape closes it and gives focus back to the button.
    await menu.click();
    expect(await nav.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.isVisible()).toBe(false);
    expect(await menu.evaluate((button) => button === button.ownerDocument.activeElement)).toBe(true);

    // At 1280 px there is no menu button: the navigation is one column on the left.
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await menu.isVisible()).toBe(false);
    expect(await nav.isVisible()).toBe(true);
    const lefts = await nav
      .locator('a')
      .evaluateAll((links) => links.map((a) => a.getBoundingClientRect().left));
    expect(new Set(lefts).size).toBe(1);
    expect(problems).toEqual([]);
    await close();
  });
});

describe('sign-in and dates in the browser', () => {
  it('is a centred card that says once what went wrong', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Email').fill(`owner@${org.slug}.test`);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.count()).toBe(1);
    expect(await alert.textContent()).toBe('Wrong email or password.');
    const card = await page.locator('form.card').boundingBox();
    expect(card).not.toBeNull();
    // Centred in the page's column (right of the navigation): as much room on its left as on its right.
    const column = (await page.locator('main').boundingBox())!;
    const left = card!.x - column.x;
    expect(Math.abs(left - (column.x + column.width - card!.x - card!.width))).toBeLessThan(2);
    await screenshots(page, 'sign-in-error');
    await expectAccessible(page, 'sign-in with an error');
    expect(problems).toEqual([]);
    await close();
  });

  it('says the session ended when a change is refused with 401, whichever redirect lands last', async () => {
    const { context, page, problems, close } = await openConsole(browser);
    await signIn(page, '/keys');
    await expect.poll(() => heading(page).textContent()).toBe('API keys');
    // The session ends elsewhere: another tab of the same browser signs out.
    const other = await context.newPage();
    await other.goto(`${server.url}/home`);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => other.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await other.close();
    // The first tab still shows the keys; its next change is refused.
    await page.getByRole('button', { name: 'Create an API key' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('after-the-end');
    await page.getByRole('combobox', { name: 'API keys', exact: true }).selectOption('read');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('Sign in');
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Your session has ended' }).count())
      .toBe(1);
    expect(new URL(page.url()).searchParams.get('next')).toBe('/keys');
    await screenshots(page, 'sign-in-session-ended');
    await expectAccessible(page, 'sign-in after the session ended');
    // Signing in again goes back to the keys, and the notice is gone for good.
    await page.getByLabel('Email').fill(`owner@${org.slug}.test`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('API keys');
    expect(problems).toEqual([]);
    await close();
  });

  it('reads a billing period by its own days in a time zone far from UTC', async () => {
    // +14 h: the exclusive end (the next month's first instant, UTC) is already that day here.
    const context = await browser.newContext({ timezoneId: 'Pacific/Kiritimati', locale: 'en-US' });
    const page = await context.newPage();
    await signIn(page, '/billing');
    await expect.poll(() => heading(page).textContent()).toBe('Billing');
    const now = new Date();
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0));
    const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });
    const usage = page.locator('section[aria-labelledby="usage"]');
    await expect.poll(() => usage.textContent()).toContain(`${day.format(first)} – ${day.format(last)}`);
    await context.close();
  });

  it("shows the built-in checkout and portal pages in the console's look, under their CSP", async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, '/billing');
    await expect.poll(() => heading(page).textContent()).toBe('Billing');
    await page
      .getByRole('button', { name: /^Upgrade to/ })
      .first()
      .click();
    await page.waitForURL(/\/billing\/local\/checkout\//);
    const csp = (await page.request.get(page.url())).headers()['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    // The console's accent (#4338ca) and font stack, not another product's blue.
    const look = await page.locator('#confirm').evaluate((button) => {
      const style = button.ownerDocument.defaultView!.getComputedStyle(button);
      return { background: style.backgroundColor, font: style.fontFamily };
    });
    expect(look.background).toBe('rgb(67, 56, 202)');
    expect(look.font).toContain('system-ui');
    await screenshots(page, 'local-checkout');
    await expectAccessible(page, 'the local checkout');
    await page.locator('#confirm').click();
    await page.waitForURL(/\/billing\?checkout=success/);
    await page.getByRole('button', { name: 'Manage billing' }).click();
    await page.waitForURL(/\/billing\/local\/portal\//);
    await expect.poll(() => page.locator('body').textContent()).toMatch(/current period ends \w+ \d+, \d{4}/);
    await screenshots(page, 'local-portal');
    await expectAccessible(page, 'the local portal');
    expect(problems).toEqual([]);
    await close();
  });
});
