import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_ID, CLIENT_SECRET, type OAuthWorld, startOAuthWorld } from '../oauth/harness.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, createProject, type TestOrganization } from '../support/fixtures.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

let world: OAuthWorld;
let chromium: TestBrowser | undefined;
let browser: Browser;
/** An organization of its own, without the integration the OAuth world registers through the admin API. */
let org: TestOrganization;
let memberEmail: string;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  world = await startOAuthWorld();
  org = await createOrganization(world.server, 'team');
  await createProject(world.server, org);
  await setPassword(world.server, org.ownerId);
  memberEmail = `member@${org.slug}.test`;
  const member = await world.server.admin<{ data: { user: { id: string } } }>(
    'POST',
    `/admin/v1/organizations/${org.id}/members`,
    { email: memberEmail, role: 'member' },
  );
  await setPassword(world.server, member.body.data.user.id);
});
afterAll(async () => {
  await chromium?.close();
  await world?.close();
});

const heading = pageHeading;
const WRONG_SECRET = 'not-the-client-secret';

async function signIn(page: Page, next: string, email = `owner@${org.slug}.test`) {
  await page.goto(`${world.server.url}/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === next);
}

/** oidc-provider's own development login and consent pages. */
async function approveAtProvider(page: Page) {
  await page.waitForURL((url) => url.origin !== new URL(world.server.url).origin);
  await page.locator('input[name="login"]').fill('alice');
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]').click();
}

/** Signs in afresh (a new browser profile, so the provider asks again) and clicks Verify. */
async function verifyInBrowser(expected: RegExp) {
  const { page, problems, close } = await openConsole(browser);
  await signIn(page, '/integrations');
  await page.getByRole('link', { name: /^Verify/ }).click();
  await approveAtProvider(page);
  await page.waitForURL(expected);
  return { page, problems, close };
}

interface IntegrationList {
  data: Array<{ presetKey: string; version: { number: number; verified: boolean } }>;
}
const integrations = async () =>
  (
    await world.server.request<IntegrationList>('GET', `/api/v1/organizations/${org.id}/integrations`, {
      key: org.ownerKey,
    })
  ).body.data;

describe('integrations in the browser', () => {
  it('registers an integration, fails to verify it with a wrong secret, rotates the secret and verifies it', {
    timeout: 120_000,
  }, async () => {
    const first = await openConsole(browser);
    const page = first.page;
    await signIn(page, '/integrations');
    await expect.poll(() => page.getByText('No integration yet.', { exact: false }).count()).toBe(1);
    await screenshots(page, 'integrations-empty');
    await expectAccessible(page, 'integrations, empty');

    await page.getByRole('button', { name: 'Register an integration' }).click();
    const form = page.getByRole('form', { name: 'Register an integration' });
    const options = await form.getByLabel('Provider').locator('option').allTextContents();
    expect(options).toContain('GitHub');
    expect(options).toContain('OpenID Connect');
    await form.getByLabel('Provider').selectOption({ label: 'OpenID Connect' });
    expect(await form.textContent()).toContain(`${world.server.url}/api/oauth/callback/oidc`);
    await form.getByLabel('Client id').fill(CLIENT_ID);
    await form.getByLabel('Client secret').fill(WRONG_SECRET);
    await form.getByLabel('Issuer URL').fill(world.provider.issuer);
    await screenshots(page, 'integrations-register');
    await expectAccessible(page, 'integrations, register form');
    await form.getByRole('button', { name: 'Register' }).click();
    const card = page.getByRole('region', { name: /OpenID Connect/ });
    await expect.poll(() => card.getByText('Not verified').count()).toBe(1);
    // Write-only: the secret is in no answer and on no page.
    expect(await page.content()).not.toContain(WRONG_SECRET);
    expect(JSON.stringify(await integrations())).not.toContain(WRONG_SECRET);
    expect((await integrations())[0]?.version.verified).toBe(false);
    await screenshots(page, 'integrations');
    await expectAccessible(page, 'integrations');

    // Unverified: the Connections page does not offer it.
    await page.goto(`${world.server.url}/connections`);
    await expect.poll(() => page.getByText('No verified integration yet', { exact: false }).count()).toBe(1);
    expect(
      await page
        .locator('main')
        .getByRole('link', { name: /^(Re)?connect /i })
        .count(),
    ).toBe(0);
    expect(first.problems).toEqual([]);
    await first.close();

    const failed = await verifyInBrowser(/\/integrations\?verifying=oidc&oauth_status=error/);
    await expect
      .poll(() => failed.page.getByRole('alert').textContent())
      .toContain('OpenID Connect was not verified');
    expect(await failed.page.getByRole('alert').textContent()).toContain('client secret');
    expect((await integrations())[0]?.version.verified).toBe(false);
    await screenshots(failed.page, 'integrations-verify-failed');

    // Rotate the secret: a new version, still unverified.
    await failed.page.getByRole('button', { name: 'Update' }).click();
    const update = failed.page.getByRole('form', { name: 'Update OpenID Connect' });
    expect(await update.getByLabel(/New client secret/).inputValue()).toBe('');
    await update.getByLabel(/New client secret/).fill(CLIENT_SECRET);
    await update.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => failed.page.getByText('version 2', { exact: false }).count()).toBe(1);
    expect(await failed.page.content()).not.toContain(CLIENT_SECRET);
    expect(failed.problems).toEqual([]);
    await failed.close();

    const verified = await verifyInBrowser(/\/integrations\?verifying=oidc&oauth_status=success/);
    await expect
      .poll(() => verified.page.getByRole('status').textContent())
      .toContain('OpenID Connect is verified');
    await expect.poll(() => verified.page.getByText('Verified', { exact: true }).count()).toBe(1);
    const stored = (await integrations())[0];
    // Verifying appends a verified version (3) after the rotated one (2).
    expect(stored?.version).toMatchObject({ number: 3, verified: true });
    await screenshots(verified.page, 'integrations-verified');
    await expectAccessible(verified.page, 'integrations, verified');
    // The test authorization left no connection behind.
    const projects = await world.server.request<{
      data: Array<{ id: string; environments: Array<{ id: string }> }>;
    }>('GET', '/api/v1/projects', { key: org.ownerKey });
    for (const project of projects.body.data) {
      for (const environment of project.environments) {
        const listed = await world.server.request<{ data: { connections: unknown[] } }>(
          'GET',
          `/api/v1/projects/${project.id}/environments/${environment.id}/connections`,
          { key: org.ownerKey },
        );
        expect(listed.body.data.connections).toEqual([]);
      }
    }
    expect(verified.problems).toEqual([]);
    await verified.close();
  });

  it('offers the verified integration by its name, then Reconnect; removing it shows the connection it would cut', {
    timeout: 90_000,
  }, async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, '/connections');
    const production = page.getByRole('region', { name: 'production' });
    await production.getByRole('link', { name: 'Connect OpenID Connect' }).click();
    await approveAtProvider(page);
    await page.waitForURL(/\/connections\?oauth_status=success/);
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Connected OpenID Connect');
    await expect
      .poll(() => production.getByRole('link', { name: 'Reconnect OpenID Connect' }).count())
      .toBe(1);
    expect(await page.getByRole('region', { name: 'development' }).getByRole('link').textContent()).toBe(
      'Connect OpenID Connect',
    );

    await page.goto(`${world.server.url}/integrations`);
    await page.getByRole('button', { name: 'Remove…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').count()).toBe(1);
    expect(await dialog.textContent()).toContain('1 connection was made with it');
    expect(await dialog.textContent()).toContain('alice');
    await screenshots(page, 'integrations-remove-blocked');
    await expectAccessible(page, 'integrations, remove blocked');
    expect(await integrations()).toHaveLength(1);
    await dialog.getByRole('button', { name: 'Disconnect them and remove' }).click();
    await expect.poll(() => page.getByText('No integration yet.', { exact: false }).count()).toBe(1);
    expect(await integrations()).toEqual([]);
    expect(problems).toEqual([]);
    await close();
  });

  it('shows a member the integrations without any control to change them', async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, '/integrations', memberEmail);
    await expect.poll(() => heading(page).textContent()).toBe('Integrations');
    await expect
      .poll(() => page.getByText('Only owners and admins manage integrations', { exact: false }).count())
      .toBe(1);
    expect(await page.getByRole('button', { name: /Register|Update|Remove/ }).count()).toBe(0);
    await screenshots(page, 'integrations-member');
    await expectAccessible(page, 'integrations as a member');
    expect(problems).toEqual([]);
    await close();
  });
});
