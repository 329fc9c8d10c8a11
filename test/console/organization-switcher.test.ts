import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading } from './console-page.js';

// One person, two organizations: choosing at sign-in and switching from the header.
let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let first: TestOrganization;
let second: TestOrganization;
let email: string;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  first = await createOrganization(server, 'team');
  second = await createOrganization(server, 'team');
  await setPassword(server, first.ownerId);
  await setPassword(server, second.ownerId);
  email = `owner@${first.slug}.test`;
  // The owner of `first` is a member of `second`.
  await server.admin('POST', `/admin/v1/organizations/${second.id}/members`, { email, role: 'member' });
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;

async function signIn(page: Page, who: string) {
  await page.goto(`${server.url}/sign-in?next=${encodeURIComponent('/home')}`);
  await page.getByLabel('Email').fill(who);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the organization switcher', () => {
  it('lets a person in two organizations choose at sign-in, then switch from the header', async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, email);
    await expect.poll(() => heading(page).textContent()).toBe('Choose an organization');
    await expectAccessible(page, 'the organization choice');
    await page.getByRole('button', { name: `${second.slug} (member)` }).click();
    await expect.poll(() => heading(page).textContent()).toBe(second.slug);
    const picker = page.getByLabel('Current organization', { exact: true });
    expect(await picker.inputValue()).toBe(second.id);
    // A member of `second`: the audit log is not in the navigation there.
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);

    await page.goto(`${server.url}/members`);
    await expect.poll(() => heading(page).textContent()).toBe('Members');
    await picker.selectOption(first.id);
    // The page stays, read again in the owner's organization (where the Audit log entry appears).
    await expect.poll(() => page.getByRole('link', { name: 'Audit log' }).count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/members');
    await page.goto(`${server.url}/home`);
    await expect.poll(() => heading(page).textContent()).toBe(first.slug);
    await expectAccessible(page, 'the header with the organization picker');
    expect(problems).toEqual([]);
    await close();
  });

  it('shows a person in one organization its name, with nothing to choose', async () => {
    const { page, close } = await openConsole(browser);
    await signIn(page, `owner@${second.slug}.test`);
    await expect.poll(() => heading(page).textContent()).toBe(second.slug);
    expect(await page.getByLabel('Current organization', { exact: true }).count()).toBe(0);
    expect(await page.locator('.organization-name').textContent()).toBe(second.slug);
    await close();
  });
});
