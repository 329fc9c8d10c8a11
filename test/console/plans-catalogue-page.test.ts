import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/modules/billing/plans.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

// The console follows an operator's plan catalogue (CADRE_PLANS_FILE, docs/billing.md): a self-hosted
// catalogue of one plan without limits shows counts without bars and the plan as unlimited.

const SELF_HOSTED: Plan = {
  key: 'free',
  name: 'Self-hosted',
  description: 'Everything, without limits.',
  amount: 0,
  currency: 'usd',
  interval: 'month',
  features: [],
  limits: { apiRequests: null, expertVersions: null, apiKeys: null, connections: null },
  active: true,
};

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer({ billing: { provider: 'local', plans: [SELF_HOSTED] } });
  org = await createOrganization(server, 'team', undefined, { planLimits: 'plan' });
  await setPassword(server, org.ownerId);
});
afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;

describe("the console with an operator's catalogue of one plan without limits", () => {
  it('billing shows the plan as unlimited and usage as counts without bars; home too', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/sign-in?next=${encodeURIComponent('/billing')}`);
    await page.getByLabel('Email').fill(`owner@${org.slug}.test`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('Billing');
    await expect.poll(() => page.getByText('(no limit)').count()).toBe(4);
    expect(await page.locator('meter').count()).toBe(0);
    await expect.poll(() => page.getByText('Self-hosted').count()).toBeGreaterThan(0);
    expect(await page.getByText('Unlimited API keys').count()).toBe(1);
    expect(await page.getByText('Upgrade').count()).toBe(0);
    await screenshots(page, 'billing-unlimited');
    await expectAccessible(page, 'billing-unlimited');

    await page.goto(`${server.url}/home`);
    await expect.poll(() => heading(page).textContent()).toBe(org.slug);
    await expect.poll(() => page.getByText('(no limit)').count()).toBe(4);
    await screenshots(page, 'home-unlimited');
    expect(problems).toEqual([]);
    await close();
  });
});
