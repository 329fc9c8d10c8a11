import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingLocalSessions } from '../../src/modules/billing/billing.tables.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, createProject, type TestOrganization } from '../support/fixtures.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots, signInAs } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
let memberEmail: string;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  // The plan's own limits (not the tests' generous ones): the usage bars show real limits.
  org = await createOrganization(server, 'team', undefined, { planLimits: 'plan' });
  await setPassword(server, org.ownerId);
  memberEmail = `member@${org.slug}.test`;
  const member = await server.admin<{ data: { user: { id: string } } }>(
    'POST',
    `/admin/v1/organizations/${org.id}/members`,
    { email: memberEmail, role: 'member' },
  );
  await setPassword(server, member.body.data.user.id);
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;

const signIn = (page: Page, email: string, next: string) => signInAs(page, server.url, email, next);

describe('the organization in the browser', () => {
  it('shows home: who I am, the organization, plan and usage', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/home`);
    await expect.poll(() => heading(page).textContent()).toBe('Sign in');
    await page.getByLabel('Email').fill(`owner@${org.slug}.test`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => heading(page).textContent()).toBe(org.slug);
    await expect.poll(() => page.locator('meter').count()).toBe(4);
    await screenshots(page, 'home');
    await expectAccessible(page, 'home');
    expect(problems).toEqual([]);
    await close();
  });

  it('creates a key, which works at once, then revokes it, after which it is refused', async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, `owner@${org.slug}.test`, '/keys');
    await expect.poll(() => heading(page).textContent()).toBe('API keys');
    await page.getByRole('button', { name: 'Create an API key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('browser-made');
    await page.getByRole('combobox', { name: 'API keys', exact: true }).selectOption('read');
    await page.getByLabel('Expires').selectOption('30');
    await screenshots(page, 'api-key-create');
    await expectAccessible(page, 'the key form');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByTestId('new-secret');
    await expect.poll(() => secret.count()).toBe(1);
    const key = (await secret.textContent()) ?? '';
    expect(key).toMatch(/^cadre_/);
    await screenshots(page, 'api-key-secret');

    expect((await http(server.url, 'GET', '/api/v1/api-keys', { key })).status).toBe(200);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByTestId('new-secret').count()).toBe(0);
    const row = page.getByRole('row', { name: /browser-made/ });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('Whole organization: list API keys');
    await row.getByRole('button', { name: 'Revoke…' }).click();
    await page.getByRole('button', { name: 'Revoke the key' }).click();
    await expect.poll(() => row.textContent()).toContain('Revoked');
    expect((await http(server.url, 'GET', '/api/v1/api-keys', { key })).status).toBe(401);
    await screenshots(page, 'api-keys');
    await expectAccessible(page, 'the key list');
    expect(problems).toEqual([]);
    await close();
  });

  it('builds a key for one environment, offering only what the role allows', async () => {
    const shop = await createProject(server, org, 'shop');
    const { environments } = shop;
    const production = environments.find((e) => e.name === 'production')!;
    const { page, close } = await openConsole(browser);
    await signIn(page, memberEmail, '/keys');
    await expect.poll(() => heading(page).textContent()).toBe('API keys');
    await page.getByRole('button', { name: 'Create an API key' }).click();
    // A member's role has no billing:manage: billing is offered read-only.
    await expect.poll(() => page.getByLabel('Billing', { exact: true }).count()).toBe(1);
    expect(await page.locator('#area-billing option').allTextContents()).toEqual(['No access', 'Read']);
    await page.getByLabel('Reaches').selectOption('environment');
    await page.getByLabel('shop / production').check();
    // An environment grant carries only projects and agents permissions: no other area is offered.
    await expect.poll(() => page.getByLabel('Billing', { exact: true }).count()).toBe(0);
    await page.getByLabel('Projects', { exact: true }).selectOption('operate');
    await screenshots(page, 'api-key-grant-builder');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByTestId('new-secret').count()).toBe(1);
    const key = (await page.getByTestId('new-secret').textContent()) ?? '';
    const me = await http<{ data: { grants: unknown; role: string } }>(server.url, 'GET', '/api/v1/me', {
      key,
    });
    expect(me.body.data.role).toBe('member');
    expect(me.body.data.grants).toEqual({
      type: 'environment',
      environmentIds: [production.id],
      permissions: ['projects:read', 'projects:operate'],
    });

    // And one for an agent: an agent grant carries agents:run only.
    const agent = await server.admin<{ data: { agent: { id: string } } }>(
      'POST',
      `/admin/v1/projects/${shop.project.id}/agents`,
      { name: 'support-bot' },
    );
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('button', { name: 'Create an API key' }).click();
    await page.getByLabel('Reaches').selectOption('agent');
    await page.getByLabel('shop / support-bot').check();
    await expect.poll(() => page.getByLabel('Projects', { exact: true }).count()).toBe(0);
    await page.getByLabel('Agents', { exact: true }).selectOption('run');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByTestId('new-secret').count()).toBe(1);
    const agentKey = (await page.getByTestId('new-secret').textContent()) ?? '';
    const agentMe = await http<{ data: { grants: unknown } }>(server.url, 'GET', '/api/v1/me', {
      key: agentKey,
    });
    expect(agentMe.body.data.grants).toEqual({
      type: 'agent',
      agentIds: [agent.body.data.agent.id],
      permissions: ['agents:run'],
    });
    await close();
  });

  it('creates a key with the keyboard alone', async () => {
    const { page, close } = await openConsole(browser);
    await signIn(page, `owner@${org.slug}.test`, '/keys');
    await expect.poll(() => heading(page).textContent()).toBe('API keys');
    await page.getByRole('button', { name: 'Create an API key' }).focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('Name', { exact: true }).focus();
    await page.keyboard.type('keyboard-made');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('new-secret').count()).toBe(1);
    await close();
  });

  it('upgrades through the local checkout and comes back to billing with the plan active; a double click buys once', async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, `owner@${org.slug}.test`, '/billing');
    await expect.poll(() => heading(page).textContent()).toBe('Billing');
    await expect.poll(() => page.getByText(/^Test mode:/).count()).toBe(1);
    await screenshots(page, 'billing');
    await expectAccessible(page, 'billing');

    const upgrade = page.getByRole('button', { name: /^Upgrade to/ }).first();
    await upgrade.dblclick();
    await page.waitForURL(/\/billing\/local\/checkout\//);
    const sessions = await server.context.database.db
      .select()
      .from(billingLocalSessions)
      .where(eq(billingLocalSessions.organizationId, org.id));
    expect(sessions.filter((s) => s.kind === 'checkout')).toHaveLength(1);

    await page.locator('#confirm').click();
    await page.waitForURL(/\/billing\?checkout=success/);
    await expect.poll(() => page.getByText('Payment complete').count()).toBe(1);
    await expect.poll(() => page.locator('.plan[aria-current="true"]').count()).toBe(1);
    expect(await page.getByRole('region', { name: 'Subscription' }).textContent()).toContain('Active');
    await expect.poll(() => page.locator('meter').count()).toBe(4);
    await screenshots(page, 'billing-upgraded');
    expect(problems).toEqual([]);
    await close();
  });

  it('lets an owner read the audit log with filters, and tells a member in words that it is not theirs', async () => {
    const owner = await openConsole(browser);
    await signIn(owner.page, `owner@${org.slug}.test`, '/audit');
    await expect.poll(() => heading(owner.page).textContent()).toBe('Audit log');
    await expect
      .poll(() => owner.page.locator('tbody').getByText('API key created').count())
      .toBeGreaterThan(0);
    await screenshots(owner.page, 'audit');
    await expectAccessible(owner.page, 'the audit log');
    await owner.page.getByLabel('Action').selectOption('api_key.revoked');
    await owner.page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => owner.page.locator('tbody tr').count()).toBe(1);
    await owner.close();

    const member = await openConsole(browser);
    await signIn(member.page, memberEmail, '/audit');
    await expect
      .poll(() => member.page.getByRole('alert').textContent())
      .toContain('Only owners and admins can read the audit log.');
    await screenshots(member.page, 'audit-member');
    // A member sees only their own keys.
    await member.page.goto(`${server.url}/keys`);
    // (the member made two keys above; the owner's keys, 'browser-made' among them, are not listed)
    await expect.poll(() => member.page.locator('tbody tr').count()).toBe(2);
    expect(await member.page.getByRole('row', { name: /browser-made/ }).count()).toBe(0);
    await member.close();
  });
});
