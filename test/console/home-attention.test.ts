import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, published } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

// Home says what needs this person's attention, each item linking to where it is handled, and only what
// their role lets them act on; with nothing to do, it says so. A plan limit near or at its bound comes with
// what lifts it: Upgrade for those who may change the plan, the owner to ask, by name, for the others. Those
// who may read the audit log see its last records in words; the others see no such section.

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
let quiet: TestOrganization;
let memberEmail: string;

const DAY = 24 * 60 * 60 * 1000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  org = await createOrganization(server, 'team');
  quiet = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  await setPassword(server, quiet.ownerId);
  const memberId = await addMember(server, org, 'member');
  await setPassword(server, memberId);
  const members = await server.request<{ data: { userId: string; email: string }[] }>(
    'GET',
    `/api/v1/organizations/${org.slug}/members`,
    { key: org.ownerKey },
  );
  memberEmail = members.body.data.find((m) => m.userId === memberId)?.email ?? '';

  // Wider access waits for approval; the member publishes a version that widens it.
  const policy = await server.request('PUT', '/api/v1/organization/publish-policy', {
    key: org.ownerKey,
    body: {
      allowedCommands: null,
      requirePinnedVersions: false,
      allowedSseHosts: null,
      approvalRequiredForWidening: true,
    },
  });
  expect(policy.status, policy.text).toBe(200);
  const memberKey = await createKey(server, org, memberId, {
    type: 'organization',
    permissions: ['experts:write'],
  });
  const name = `@${org.slug}/writer`;
  await published(server, memberKey.key, expertBody(name, '1.0.0'));
  await published(
    server,
    memberKey.key,
    expertBody(name, '1.1.0', {
      skills: {
        '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' },
        search: { type: 'mcpSseSkill', endpoint: 'https://search.example.com/mcp' },
      },
    }),
  );
  // Keys: the owner's expires in 3 days, another in 60 (not yet worth a look); the member's own in 5.
  await createKey(
    server,
    org,
    org.ownerId,
    { type: 'organization', permissions: ['*'] },
    { name: 'deploy', expiresAt: inDays(3) },
  );
  await createKey(
    server,
    org,
    org.ownerId,
    { type: 'organization', permissions: ['*'] },
    { name: 'later', expiresAt: inDays(60) },
  );
  await createKey(
    server,
    org,
    memberId,
    { type: 'organization', permissions: ['experts:write'] },
    { name: 'laptop', expiresAt: inDays(5) },
  );
  const invited = await server.request('POST', `/api/v1/organizations/${org.slug}/invitations`, {
    key: org.ownerKey,
    body: { email: 'ada@example.com', role: 'member' },
  });
  expect(invited.status, invited.text).toBe(201);
  const renamed = await server.request('PATCH', '/api/v1/me', {
    key: org.ownerKey,
    body: { name: 'Olive Owner' },
  });
  expect(renamed.status, renamed.text).toBe(200);
  // Five keys against a limit of six (near), two Expert versions against two (reached).
  const limits = await server.admin('PUT', `/admin/v1/organizations/${org.slug}/limits`, {
    apiKeys: 6,
    expertVersions: 2,
  });
  expect(limits.status, limits.text).toBe(200);
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

async function signIn(page: Page, email: string) {
  await page.goto(`${server.url}/sign-in?next=/home`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => pageHeading(page).textContent()).not.toBe('Sign in');
}

const attention = (page: Page) => page.getByRole('region', { name: 'Needs attention' });
const itemTexts = async (page: Page) =>
  (await attention(page).getByRole('listitem').allTextContents()).map((text) =>
    text.replace(/\s+/g, ' ').trim(),
  );

describe("Home's attention list", () => {
  it('shows the owner what waits for them, each item linking to where it is handled', async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, `owner@${org.slug}.test`);
    await expect.poll(() => attention(page).getByRole('listitem').count()).toBe(5);
    const items = await itemTexts(page);
    expect(items[0]).toBe(`@${org.slug}/writer@1.1.0 waits for your approval: it widens access. Review it`);
    expect(items[1]).toMatch(/^API key deploy expires in 3 days\. Replace it$/);
    expect(items[2]).toBe('ada@example.com has not accepted the invitation yet. See invitations');
    expect(items[3]).toBe(
      "Expert versions: the plan's limit is reached (2 of 2), so new ones are refused. Upgrade",
    );
    expect(items[4]).toBe("API keys: 5 of 6 used, close to the plan's limit. Upgrade");
    // The key that expires in 60 days is not worth a look yet.
    expect(items.join(' ')).not.toContain('later');
    // The recent activity: the newest audit records in words, the record by name and linked.
    const activity = page.getByRole('region', { name: 'Recent activity' });
    await expect.poll(() => activity.getByRole('listitem').count()).toBe(5);
    const lines = (await activity.getByRole('listitem').allTextContents()).map((text) =>
      text.replace(/\s+/g, ' ').trim(),
    );
    expect(lines[0]).toMatch(/^Name changed: Olive Owner \(Name: none → Olive Owner\)Olive Owner · /);
    expect(lines[1]).toMatch(/^Invitation sent: ada@example\.com .*Olive Owner · /);
    expect(lines.join(' ')).not.toMatch(/[{}]|usr_|key_/);
    // The plan by its name, not its key.
    await expect
      .poll(() => page.getByRole('region', { name: 'Plan and usage' }).textContent())
      .toContain('Plan Free');
    await screenshots(page, 'home-attention-owner');
    await attention(page).getByRole('link', { name: 'Upgrade' }).first().click();
    await expect.poll(() => pageHeading(page).textContent()).toBe('Billing');
    await page.goBack();
    await activity.getByRole('link', { name: 'ada@example.com' }).click();
    await expect.poll(() => pageHeading(page).textContent()).toBe('Members');
    await page.goBack();
    await expectAccessible(page, 'Home with things to attend to');
    await attention(page).getByRole('link', { name: 'Review it' }).click();
    await expect.poll(() => pageHeading(page).textContent()).toBe('Publishing');
    expect(problems).toEqual([]);
    await close();
  });

  it("shows a member only what they can act on: their own key, not others' approvals or invitations", async () => {
    const { page, problems, close } = await openConsole(browser, {
      colorScheme: 'dark',
      viewport: { width: 390, height: 844 },
    });
    await signIn(page, memberEmail);
    await expect.poll(() => attention(page).getByRole('listitem').count()).toBe(3);
    expect(await itemTexts(page)).toEqual([
      'API key laptop expires in 5 days. Replace it',
      "Expert versions: the plan's limit is reached (2 of 2), so new ones are refused. Ask an owner (Olive Owner) to upgrade the plan.",
      "API keys: 5 of 6 used, close to the plan's limit. Ask an owner (Olive Owner) to upgrade the plan.",
    ]);
    // No upgrade path they cannot take, and no audit records they may not read.
    expect(await attention(page).getByRole('link', { name: 'Upgrade' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Recent activity' }).count()).toBe(0);
    await screenshots(page, 'home-attention-member-dark');
    await expectAccessible(page, "a member's Home, dark");
    expect(problems).toEqual([]);
    await close();
  });

  it('says when nothing needs attention', async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, `owner@${quiet.slug}.test`);
    await expect.poll(() => attention(page).textContent()).toContain('Nothing needs your attention.');
    expect(await attention(page).getByRole('listitem').count()).toBe(0);
    await screenshots(page, 'home-attention-empty');
    await expectAccessible(page, 'Home with nothing to attend to');
    expect(problems).toEqual([]);
    await close();
  });
});
