import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { runCli } from '../support/cli-harness.js';
import { type SsoWorld, startSsoWorld } from './harness.js';

// `cadre login` through single sign-on, end to end: the CLI opens the console's approval page, the person
// is sent to sign in, chooses single sign-on, signs in on the organization's provider (oidc-provider's own
// login and consent pages, in Chromium), lands back on the approval page, approves, and the CLI has its key.

let world: SsoWorld;
let chromium: TestBrowser | undefined;
let browser: Browser;
let config: string;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  world = await startSsoWorld();
  config = mkdtempSync(join(tmpdir(), 'cadre-sso-login-'));
});
afterAll(async () => {
  await chromium?.close();
  await world?.close();
  if (config) rmSync(config, { recursive: true, force: true });
});

/** The person's side: the page the CLI opened, single sign-on at the provider, then Approve. */
async function approveThroughSso(url: string, email: string, login: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(url);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Email').blur();
    await page.getByRole('link', { name: 'Continue with single sign-on' }).click();
    // The provider's own login page, then its consent page.
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();
    // Back on the console's approval page, signed in.
    await expect.poll(() => page.getByTestId('cli-code').count(), { timeout: 15_000 }).toBe(1);
    const landed = new URL(page.url());
    expect(`${landed.origin}${landed.pathname}${landed.search}`).toBe(url);
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('main h1').textContent()).toBe('The CLI is signed in');
  } finally {
    await context.close();
  }
}

describe('cadre login through single sign-on', () => {
  it('signs in at the provider, comes back to the approval page and gives the CLI its key', {
    timeout: 120_000,
  }, async () => {
    const email = `dana@${world.domain}`;
    world.idp.people.set('dana', { email });
    let approval: Promise<void> | undefined;
    let opened = '';
    const login = await runCli(['login'], {
      cwd: process.cwd(),
      env: { CADRE_URL: world.server.url, XDG_CONFIG_HOME: config },
      openUrl: async (url) => {
        opened = url;
        approval = approveThroughSso(url, email, 'dana');
        return true;
      },
    });
    await approval;
    expect(login.code, login.stderr).toBe(0);
    expect(opened).toMatch(new RegExp(`^${world.server.url}/cli-login\\?code=[A-Z]{4}-[A-Z]{4}$`));
    expect(login.stdout).toContain(`Signed in to ${world.org.slug}`);

    // The key is the SSO person's own (made at this first sign-in), and it works.
    const stored = JSON.parse(readFileSync(join(config, 'cadre', 'credentials.json'), 'utf8')) as {
      servers: Record<string, { key: string; apiKeyId: string }>;
    };
    const key = stored.servers[world.server.url]!.key;
    const me = await world.server.request<{ data: { user: { email: string }; role: string } }>(
      'GET',
      '/api/v1/me',
      { key },
    );
    expect(me.status, me.text).toBe(200);
    expect(me.body.data).toMatchObject({ user: { email }, role: 'member' });
    const whoami = await runCli(['whoami'], {
      cwd: process.cwd(),
      env: { CADRE_URL: world.server.url, XDG_CONFIG_HOME: config },
    });
    expect(whoami.stdout).toContain(email);
  });
});
