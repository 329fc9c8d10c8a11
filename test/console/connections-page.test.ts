import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthWorld, startOAuthWorld } from '../oauth/harness.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

let world: OAuthWorld;
let chromium: TestBrowser | undefined;
let browser: Browser;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  world = await startOAuthWorld();
  await setPassword(world.server, world.org.ownerId);
});
afterAll(async () => {
  await chromium?.close();
  await world?.close();
});

const heading = pageHeading;

async function signIn(page: Page) {
  await page.goto(`${world.server.url}/sign-in?next=/connections`);
  await page.getByLabel('Email').fill(`owner@${world.org.slug}.test`);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => heading(page).textContent()).toBe('Connections');
}

/** The test OAuth server's own pages (oidc-provider's development login and consent forms). */
async function approveAtProvider(page: Page) {
  await page.locator('input[name="login"]').fill('alice');
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]').click();
}

const production = (page: Page) => page.getByRole('region', { name: 'production' });

describe('connections in the browser', () => {
  it('connects an environment through the real OAuth server, lists it, then disconnects it', async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page);
    await expect
      .poll(() => production(page).getByRole('link', { name: 'Connect OpenID Connect' }).count())
      .toBe(1);
    await screenshots(page, 'connections-empty');
    await expectAccessible(page, 'connections');

    await production(page).getByRole('link', { name: 'Connect OpenID Connect' }).click();
    await page.waitForURL((url) => url.origin !== new URL(world.server.url).origin);
    await approveAtProvider(page);
    await page.waitForURL(/\/connections\?oauth_status=success/);
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Connected OpenID Connect');
    await expect.poll(() => production(page).getByText('Active').count()).toBe(1);
    expect(await production(page).textContent()).toContain('alice');
    await screenshots(page, 'connections');

    await production(page).getByRole('button', { name: 'Disconnect…' }).click();
    await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await expect.poll(() => production(page).getByText('No connections yet.').count()).toBe(1);
    const left = await world.server.request<{ data: { connections: unknown[] } }>(
      'GET',
      `/api/v1/projects/${world.projectId}/environments/${world.environmentId}/connections`,
      { key: world.org.ownerKey },
    );
    expect(left.body.data.connections).toEqual([]);
    expect(problems).toEqual([]);
    await close();
  });

  it('explains in words when the person declines at the provider', async () => {
    const { page, close } = await openConsole(browser);
    await signIn(page);
    await production(page).getByRole('link', { name: 'Connect OpenID Connect' }).click();
    await page.waitForURL((url) => url.origin !== new URL(world.server.url).origin);
    await page.getByText('[ Cancel ]').click();
    await page.waitForURL(/oauth_status=error/);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('consent screen was declined');
    await screenshots(page, 'connections-declined');
    await close();
  });
});
