import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SsoWorld, startSsoWorld } from '../sso/harness.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots, signInAs } from './console-page.js';

// Single sign-on set up in the browser as an owner does it: the provider registered, a test sign-in through
// the real provider (oidc-provider's own login and consent pages), then enforcement with a break-glass owner
// and the group → role rules.

let world: SsoWorld;
let chromium: TestBrowser | undefined;
let browser: Browser;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  world = await startSsoWorld();
  await setPassword(world.server, world.org.ownerId);
});

afterAll(async () => {
  await chromium?.close();
  await world?.close();
});

describe('single sign-on on the settings page', () => {
  it('tests the provider, then enforces it with a break-glass owner, and writes the role rules', {
    timeout: 180_000,
  }, async () => {
    const { page, problems, close } = await openConsole(browser);
    await signInAs(page, world.server.url, `owner@${world.org.slug}.test`, '/settings');
    await expect.poll(() => pageHeading(page).textContent()).toBe('Settings');
    const sso = page.getByRole('region', { name: 'Single sign-on' });
    await expect.poll(() => sso.textContent()).toContain(world.idp.issuer);
    expect(await sso.textContent()).toContain(`${world.server.url}/auth/sso/callback`);
    // Enforcement waits for a test sign-in.
    const enforce = sso.getByLabel(/Require single sign-on/);
    expect(await enforce.isDisabled()).toBe(true);
    expect(await sso.textContent()).toContain('Run a test sign-in first');
    await screenshots(page, 'sso-settings-untested');

    // The test sign-in goes through the provider's own pages and comes back here.
    await sso.getByRole('button', { name: 'Test sign-in' }).click();
    await page.locator('input[name="login"]').fill('tester');
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();
    await expect.poll(() => pageHeading(page).textContent()).toBe('Settings');
    expect(new URL(page.url()).searchParams.get('sso')).toBe('tested');
    await expect
      .poll(() => sso.getByRole('status').first().textContent())
      .toContain('The test sign-in worked');
    await expect.poll(() => enforce.isDisabled()).toBe(false);

    // Enforcement, with the owner keeping a password.
    await enforce.check();
    await sso
      .getByRole('group', { name: /break-glass/ })
      .getByRole('checkbox')
      .first()
      .check();
    await sso.getByRole('button', { name: 'Save enforcement' }).click();
    await expect.poll(() => sso.getByText('Enforcement saved.').count()).toBe(1);
    const provider = await world.server.request<{ data: { enforced: boolean; breakGlassUserIds: string[] } }>(
      'GET',
      '/api/v1/sso/provider',
      { key: world.org.ownerKey },
    );
    expect(provider.body.data).toMatchObject({ enforced: true, breakGlassUserIds: [world.org.ownerId] });

    // The role rules: engineering → admin, everyone else a member.
    const rules = sso.getByRole('form', { name: 'Roles from groups' });
    await rules.getByRole('button', { name: 'Add a rule' }).click();
    await rules.getByLabel('Group of rule 1').fill('engineering');
    await rules.getByLabel('Role of rule 1').selectOption('admin');
    await rules.getByRole('button', { name: 'Save the rules' }).click();
    await expect.poll(() => rules.getByText('Rules saved.').count()).toBe(1);
    const mappings = await world.server.request<{ data: { defaultRole: string; rules: unknown[] } }>(
      'GET',
      '/api/v1/sso/role-mappings',
      { key: world.org.ownerKey },
    );
    expect(mappings.body.data).toMatchObject({
      defaultRole: 'member',
      rules: [{ group: 'engineering', role: 'admin' }],
    });
    await expectAccessible(page, 'single sign-on settings');
    await screenshots(page, 'sso-settings');
    expect(problems).toEqual([]);
    await close();
  });
});
