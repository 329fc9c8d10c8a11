import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, published, versionsOf } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
let adminEmail: string;
let memberEmail: string;

async function addPerson(role: 'admin' | 'member') {
  const email = `${role}@${org.slug}.test`;
  const res = await server.admin<{ data: { user: { id: string } } }>(
    'POST',
    `/admin/v1/organizations/${org.id}/members`,
    { email, role },
  );
  expect(res.status, res.text).toBe(201);
  await setPassword(server, res.body.data.user.id);
  return email;
}

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  adminEmail = await addPerson('admin');
  memberEmail = await addPerson('member');
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;
const name = () => `@${org.slug}/writer`;

async function signIn(page: Page, email: string) {
  await page.goto(`${server.url}/sign-in?next=/publishing`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => heading(page).textContent()).toBe('Publishing');
}

const latestOf = async () => (await versionsOf(server, name())).body.data.latest;

describe('the publish policy and approvals in the browser', () => {
  // Three browsers, screenshots and axe: a minute or more on a busy machine. Every check below waits on what
  // it reads (expect.poll), never on time.
  it('lets the owner set the policy, holds a widening version, and a second admin approves or rejects it', {
    timeout: 180_000,
  }, async () => {
    const owner = await openConsole(browser);
    await signIn(owner.page, `owner@${org.slug}.test`);
    const approvals = owner.page.getByRole('region', { name: 'Approvals' });
    await expect.poll(() => approvals.textContent()).toContain('No version is waiting for approval');

    // The owner takes the recommended commands, keeps hosts open, and asks for approval of wider access.
    const policy = owner.page.getByRole('region', { name: 'Publish policy' });
    await policy.getByRole('button', { name: 'Use the recommended preset' }).click();
    await expect.poll(() => policy.getByLabel('Allowed commands').inputValue()).toBe('npx, uvx');
    await policy.getByLabel(/waits for a second owner or admin/).check();
    await screenshots(owner.page, 'publishing-policy');
    await expectAccessible(owner.page, 'the publish policy form');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => policy.getByRole('status').textContent()).toBe('Policy saved.');
    const stored = await server.request<{ data: { policy: Record<string, unknown> } }>(
      'GET',
      '/api/v1/organization/publish-policy',
      { key: org.ownerKey },
    );
    expect(stored.body.data.policy).toEqual({
      allowedCommands: ['npx', 'uvx'],
      requirePinnedVersions: false,
      allowedSseHosts: null,
      approvalRequiredForWidening: true,
      skillsFromCatalog: false,
    });

    // A list the API refuses (a command twice): the form says why in words.
    await policy.getByLabel('Allowed commands').fill('npx, npx');
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => policy.getByRole('alert').textContent()).toContain('The policy was not saved.');
    expect(await policy.getByRole('alert').textContent()).toContain('unique');
    await policy.getByLabel('Allowed commands').fill('npx, uvx');

    // 1.0.0 is the first version; 1.1.0 adds an SSE skill: it widens access and waits.
    await published(server, org.ownerKey, expertBody(name(), '1.0.0'));
    await published(
      server,
      org.ownerKey,
      expertBody(name(), '1.1.0', {
        skills: {
          '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' },
          search: { type: 'mcpSseSkill', endpoint: 'https://search.example.com/mcp' },
        },
      }),
    );
    expect(await latestOf()).toBe('1.0.0');

    // The owner published it: no Approve for them, and the page says who may.
    await owner.page.reload();
    const item = owner.page.locator('.approval').first();
    await expect.poll(() => item.textContent()).toContain(`${name()}@1.1.0`);
    expect(await item.textContent()).toContain('new skill "search" (mcpSseSkill)');
    // Once the page knows who is reading (GET /api/v1/me), it says who may approve, and offers no Approve.
    await expect.poll(() => item.textContent()).toContain('You published this version');
    expect(await item.getByRole('button', { name: 'Approve' }).count()).toBe(0);

    // The version's own page says it waits, and links to where it is decided.
    await owner.page.goto(`${server.url}/experts/${name()}@1.1.0`);
    const waitingNote = owner.page.getByRole('note').filter({ hasText: 'Waiting for approval' });
    await expect.poll(() => waitingNote.count()).toBe(1);
    await expect.poll(() => waitingNote.textContent()).toContain('new skill "search" (mcpSseSkill)');
    await screenshots(owner.page, 'expert-waiting-for-approval');
    await waitingNote.getByRole('link', { name: 'Review it in Publishing' }).click();
    await expect.poll(() => heading(owner.page).textContent()).toBe('Publishing');

    // A member sees the policy and the waiting version, and no control.
    const member = await openConsole(browser);
    await signIn(member.page, memberEmail);
    await expect.poll(() => member.page.locator('.approval').count()).toBe(1);
    await expect.poll(() => member.page.getByText('Owners and admins change the policy.').count()).toBe(1);
    await expect.poll(() => member.page.locator('.facts').textContent()).toContain('npx, uvx');
    expect(await member.page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await member.page.getByRole('button', { name: 'Save policy' }).count()).toBe(0);
    await screenshots(member.page, 'publishing-member');
    await expectAccessible(member.page, 'the publishing page as a member');
    expect(member.problems).toEqual([]);
    await member.close();

    // The admin reads what changes, then approves: latest moves.
    const admin = await openConsole(browser);
    await signIn(admin.page, adminEmail);
    const waiting = admin.page.locator('.approval').first();
    await expect.poll(() => waiting.getByRole('button', { name: 'Approve' }).count()).toBe(1);
    await waiting.getByRole('button', { name: 'Show the changes' }).click();
    await expect
      .poll(() => waiting.locator('.diff-change').filter({ hasText: 'Widens access' }).count())
      .toBe(1);
    await expect
      .poll(() => waiting.locator('.diff-why').textContent())
      .toBe('Why: new skill "search" (mcpSseSkill)');
    await screenshots(admin.page, 'publishing-approval');
    await expectAccessible(admin.page, 'a waiting version with its changes');
    await waiting.getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(() => admin.page.getByRole('status').filter({ hasText: 'Approved' }).textContent())
      .toBe(`Approved: ${name()}@1.1.0 is now latest.`);
    await expect.poll(latestOf).toBe('1.1.0');

    // 1.2.0 adds a delegate-free new stdio skill: it waits; the admin rejects it after confirming.
    await published(
      server,
      org.ownerKey,
      expertBody(name(), '1.2.0', {
        skills: {
          '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' },
          search: { type: 'mcpSseSkill', endpoint: 'https://search.example.com/mcp' },
          files: { type: 'mcpStdioSkill', command: 'uvx', packageName: 'mcp-files' },
        },
      }),
    );
    await admin.page.reload();
    const next = admin.page.locator('.approval').first();
    await expect.poll(() => next.textContent()).toContain(`${name()}@1.2.0`);
    await next.getByRole('button', { name: 'Reject…' }).click();
    const dialog = admin.page.getByRole('dialog');
    await expect.poll(() => dialog.textContent()).toContain('never becomes latest');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => admin.page.getByRole('status').filter({ hasText: 'Rejected' }).textContent())
      .toBe(`Rejected: ${name()}@1.2.0 stays published but never becomes latest.`);
    expect(await latestOf()).toBe('1.1.0');
    // Decided ones are listed by their outcome.
    await admin.page.getByLabel('Show').selectOption('rejected');
    await expect.poll(() => admin.page.locator('.approval').first().textContent()).toContain('Rejected');
    expect(admin.problems).toEqual([]);
    expect(owner.problems).toEqual([]);
    await admin.close();
    await owner.close();
  });

  it('warns the owner who asks for approval with nobody to approve, and says how to fix it', async () => {
    const alone = await createOrganization(server, 'team');
    await setPassword(server, alone.ownerId);
    const owner = await openConsole(browser);
    await owner.page.goto(`${server.url}/sign-in?next=/publishing`);
    await owner.page.getByLabel('Email').fill(`owner@${alone.slug}.test`);
    await owner.page.getByLabel('Password').fill(PASSWORD);
    await owner.page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => heading(owner.page).textContent()).toBe('Publishing');
    const policy = owner.page.getByRole('region', { name: 'Publish policy' });
    const warning = policy.getByTestId('policy-warnings');
    await expect.poll(() => policy.getByRole('button', { name: 'Save policy' }).count()).toBe(1);
    expect(await warning.count()).toBe(0);

    await policy.getByLabel(/waits for a second owner or admin/).check();
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await expect.poll(() => warning.textContent()).toContain('Nobody can approve');
    expect(await warning.textContent()).toContain('one owner and no admin');
    const invite = warning.getByRole('link', { name: 'Invite an admin on the Members page' });
    expect(await invite.count()).toBe(1);
    await screenshots(owner.page, 'publishing-nobody-to-approve');
    await expectAccessible(owner.page, 'the approval warning');

    // Still there on a fresh load, until someone can approve.
    await owner.page.reload();
    await expect.poll(() => warning.textContent()).toContain('Nobody can approve');
    // The way out: the Members page, where an admin is invited.
    await invite.click();
    await expect.poll(() => heading(owner.page).textContent()).toBe('Members');
    await owner.page.goBack();
    await expect.poll(() => heading(owner.page).textContent()).toBe('Publishing');
    const added = await server.admin('POST', `/admin/v1/organizations/${alone.id}/members`, {
      email: `admin@${alone.slug}.test`,
      role: 'admin',
    });
    expect(added.status, added.text).toBe(201);
    await owner.page.reload();
    await expect.poll(() => policy.getByRole('button', { name: 'Save policy' }).count()).toBe(1);
    expect(await warning.count()).toBe(0);

    expect(owner.problems).toEqual([]);
    await owner.close();
  });
});
