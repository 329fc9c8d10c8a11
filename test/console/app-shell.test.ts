import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createKey, createOrganization, createProject, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots, signInAs } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
let ownerEmail = '';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  ownerEmail = `owner@${org.slug}.test`;
});
afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;

async function signIn(page: Page, email: string, next: string) {
  await signInAs(page, server.url, email, next);
  await expect.poll(() => new URL(page.url()).pathname).toBe(next);
}

/** A page has settled when its heading is there and nothing says "Loading". */
async function settled(page: Page) {
  await expect.poll(() => heading(page).count()).toBe(1);
  await expect
    .poll(() =>
      page
        .getByRole('status')
        .filter({ hasText: /^Loading$/ })
        .count(),
    )
    .toBe(0);
}

/** Every page of the shell, with the name its browser tab carries (ACME: the organization's name). */
const PAGES: Array<[path: string, title: string]> = [
  ['/', 'Experts · Cadre'],
  ['/playground', 'Playground · Cadre'],
  ['/home', 'Home · ACME · Cadre'],
  ['/keys', 'API keys · ACME · Cadre'],
  ['/projects', 'Projects · ACME · Cadre'],
  ['/members', 'Members · ACME · Cadre'],
  ['/connections', 'Connections · ACME · Cadre'],
  ['/integrations', 'Integrations · ACME · Cadre'],
  ['/publishing', 'Publishing · ACME · Cadre'],
  ['/developers/webhooks', 'Webhooks · ACME · Cadre'],
  ['/developers/events', 'Events · ACME · Cadre'],
  ['/audit', 'Audit log · ACME · Cadre'],
  ['/billing', 'Billing · ACME · Cadre'],
  ['/settings', 'Settings · ACME · Cadre'],
];

describe('the app shell in the browser', () => {
  it('groups the navigation, which never moves, and marks the page, an Expert page included', async () => {
    const { page, problems, close } = await openConsole(browser, { viewport: DESKTOP });
    await signIn(page, ownerEmail, '/keys');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect.poll(() => nav.getByRole('link', { name: 'Audit log' }).count()).toBe(1);
    const groups = await nav.locator('.nav-group-label').allTextContents();
    expect(groups).toEqual(['Registry', 'Organization', 'Developers', 'Settings']);
    // The same entry at the same place, whichever is current: marking one never moves another.
    const places = () =>
      nav.locator('a').evaluateAll((links) =>
        links.map((a) => {
          const box = a.getBoundingClientRect();
          return `${a.textContent} ${box.x} ${box.y} ${box.width} ${box.height}`;
        }),
      );
    const onKeys = await places();
    expect(await nav.getByRole('link', { name: 'API keys' }).getAttribute('aria-current')).toBe('page');
    await nav.getByRole('link', { name: 'Members' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('Members');
    expect(await places()).toEqual(onKeys);
    expect(await nav.getByRole('link', { name: 'API keys' }).getAttribute('aria-current')).toBeNull();
    // An Expert's page is the registry's.
    await page.goto(`${server.url}/experts/nobody-here`);
    await settled(page);
    expect(await nav.getByRole('link', { name: 'Experts' }).getAttribute('aria-current')).toBe('page');
    expect(await page.title()).toBe('nobody-here · Cadre');
    // The API reference is one click from every page.
    expect(await nav.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('/docs');
    expect(problems).toEqual([]);
    await close();
  });

  it('titles every page, leaves room under the header, and keeps the footer at the bottom', {
    timeout: 120_000,
  }, async () => {
    const { page, problems, close } = await openConsole(browser, { viewport: DESKTOP });
    await signIn(page, ownerEmail, '/home');
    for (const [path, title] of PAGES) {
      await page.goto(`${server.url}${path}`);
      await settled(page);
      await expect.poll(() => page.title(), { message: path }).toBe(title.replace('ACME', org.slug));
      const header = (await page.locator('.site-header').boundingBox())!;
      const h1 = (await heading(page).boundingBox())!;
      expect(h1.y - (header.y + header.height), `room above the heading on ${path}`).toBeGreaterThanOrEqual(
        24,
      );
    }
    // A short page: the footer at the bottom of the window, not under the content.
    await page.goto(`${server.url}/no-such-page`);
    await settled(page);
    expect(await page.title()).toBe('Page not found · Cadre');
    const footer = (await page.locator('.site-footer').boundingBox())!;
    expect(Math.round(footer.y + footer.height)).toBe(DESKTOP.height);
    await screenshots(page, 'shell-not-found');
    expect(problems).toEqual([]);
    await close();
  });

  it("puts a page's main action within five Tab presses, the skip link first", async () => {
    const { page, problems, close } = await openConsole(browser, { viewport: DESKTOP });
    await signIn(page, ownerEmail, '/keys');
    await page.reload();
    await settled(page);
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Skip to content');
    await page.keyboard.press('Enter');
    let presses = 1;
    let focused = '';
    while (presses < 5 && focused !== 'Create an API key') {
      await page.keyboard.press('Tab');
      presses++;
      focused = (await page.locator(':focus').textContent()) ?? '';
    }
    expect(focused).toBe('Create an API key');
    expect(problems).toEqual([]);
    await close();
  });

  it('labels each cell of a key row on a phone, where the table becomes cards', async () => {
    const { page, problems, close } = await openConsole(browser, { viewport: PHONE });
    await signIn(page, ownerEmail, '/keys');
    const row = page.locator('main tbody tr').first();
    await expect.poll(() => row.count()).toBe(1);
    const labels = await row.locator('td').evaluateAll((cells) =>
      cells.map((cell) => {
        const view = cell.ownerDocument.defaultView as unknown as {
          getComputedStyle(element: unknown, pseudo: string): { content: string };
        };
        return view.getComputedStyle(cell, '::before').content;
      }),
    );
    expect(labels.slice(0, 4)).toEqual(['"Rights"', '"Created"', '"Last used"', '"Expires"']);
    // The key's id, which an API user revokes it by, is shown under its name with a copy button.
    const id = (await row.locator('.record-id code').textContent()) ?? '';
    expect(id).toMatch(/^\w+$/);
    // Its copy button is named by the key, not by the id it copies.
    expect(await row.getByRole('button', { name: /^Copy id of \S/ }).count()).toBe(1);
    expect(await row.getByRole('button', { name: id }).count()).toBe(0);
    await page.screenshot({ path: `${import.meta.dirname}/screenshots/keys-phone-labelled.png` });
    expect(problems).toEqual([]);
    await close();
  });

  it("describes a project key's rights as what it may do to those projects, never creating projects", async () => {
    const project = await createProject(server, org);
    await createKey(server, org, org.ownerId, {
      type: 'project',
      projectIds: [project.project.id],
      permissions: ['projects:write'],
    });
    const { page, problems, close } = await openConsole(browser, { viewport: DESKTOP });
    await signIn(page, ownerEmail, '/keys');
    const row = page.locator('main tbody tr').filter({ hasText: '1 project' });
    await expect.poll(() => row.count()).toBe(1);
    const words = (await row.textContent()) ?? '';
    expect(words).toContain('1 project: rename and delete them and change their environments and agents');
    expect(words).not.toContain('create');
    expect(problems).toEqual([]);
    await close();
  });

  it('keeps an invitation for a long email inside a phone', async () => {
    const email = `${'averylongmailboxname'.repeat(3)}@${org.slug}.test`;
    const invited = await server.request<{ data: { token: string } }>(
      'POST',
      `/api/v1/organizations/${org.slug}/invitations`,
      { key: org.ownerKey, body: { email, role: 'member' } },
    );
    expect(invited.status, invited.text).toBe(201);
    const { page, problems, close } = await openConsole(browser, { viewport: PHONE });
    await page.goto(`${server.url}/invitations/${invited.body.data.token}`);
    await expect.poll(() => page.locator('main').textContent()).toContain(email);
    const sideways = await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
    expect(sideways).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${import.meta.dirname}/screenshots/invitation-long-email-phone.png` });
    await expectAccessible(page, 'an invitation for a long email');
    expect(problems).toEqual([]);
    await close();
  });

  it('at a plan limit, offers the owner an upgrade and tells a member to ask an owner', {
    timeout: 90_000,
  }, async () => {
    const small = await createOrganization(server, 'team');
    const limits = await server.admin('PUT', `/admin/v1/organizations/${small.slug}/limits`, {
      apiRequests: 1e9,
      expertVersions: 1e6,
      apiKeys: 1,
      connections: 1e6,
    });
    expect(limits.status, limits.text).toBe(200);
    await setPassword(server, small.ownerId);
    const memberEmail = `member@${small.slug}.test`;
    const added = await server.admin<{ data: { user: { id: string } } }>(
      'POST',
      `/admin/v1/organizations/${small.id}/members`,
      { email: memberEmail, role: 'member' },
    );
    await setPassword(server, added.body.data.user.id);

    const member = await openConsole(browser, { viewport: DESKTOP });
    await signIn(member.page, memberEmail, '/home');
    await expect.poll(() => member.page.locator('main').textContent()).toContain('Limit reached');
    const memberText = await member.page.locator('main').textContent();
    expect(memberText).toContain('until an owner upgrades the plan');
    expect(memberText).not.toContain('until you upgrade');
    expect(member.problems).toEqual([]);
    await member.close();

    const owner = await openConsole(browser, { viewport: DESKTOP });
    await signIn(owner.page, `owner@${small.slug}.test`, '/home');
    await expect.poll(() => owner.page.locator('main').textContent()).toContain('until you upgrade');
    await owner.page.goto(`${server.url}/keys`);
    await settled(owner.page);
    await owner.page.getByRole('button', { name: 'Create an API key' }).click();
    await owner.page.getByRole('textbox', { name: 'Name' }).fill('one too many');
    await owner.page.getByLabel('Everything your role allows (owner), now and later').check();
    await owner.page.getByRole('button', { name: 'Create key' }).click();
    const alert = owner.page.getByRole('alert');
    await expect
      .poll(() => alert.textContent())
      .toContain("Your organization's plan does not allow more of these.");
    expect(await alert.textContent()).not.toContain('You are not allowed to do this.');
    expect(await alert.getByRole('link', { name: 'See the plans and upgrade' }).getAttribute('href')).toBe(
      '/billing',
    );
    await owner.page.screenshot({
      path: `${import.meta.dirname}/screenshots/plan-limit-owner.png`,
      fullPage: true,
    });
    expect(owner.problems).toEqual([]);
    await owner.close();
  });
});
