import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { addMember, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots, signInAs } from './console-page.js';

// The members table is dense: name with the id API users copy, email, role, joined, last active, one line a
// member on a desktop, each cell labelled on a phone; emails and activity only where the API shows them.

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
let memberId: string;
let memberEmail: string;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  memberId = await addMember(server, org, 'member');
  await setPassword(server, memberId);
  const members = await server.request<{ data: { userId: string; email: string }[] }>(
    'GET',
    `/api/v1/organizations/${org.slug}/members`,
    { key: org.ownerKey },
  );
  memberEmail = members.body.data.find((m) => m.userId === memberId)?.email ?? '';
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

/** A member's row, by a text of it: their id, or "(you)". */
const rowOf = (page: Page, text: string) => page.locator('main tbody tr').filter({ hasText: text });

/** Each cell of a row as its phone label ("Email") and its text. */
const cellsOf = (page: Page, text: string) =>
  rowOf(page, text)
    .locator('td[data-label]')
    .evaluateAll((cells) =>
      cells.map((cell) => `${cell.getAttribute('data-label')}: ${(cell.textContent ?? '').trim()}`),
    );

describe('the members table', () => {
  it("shows the owner each member's email, role, dates and copyable id, labelled on a phone", async () => {
    const { page, context, problems, close } = await openConsole(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signInAs(page, server.url, `owner@${org.slug}.test`, '/members');
    await expect.poll(() => pageHeading(page).textContent()).toBe('Members');
    await expect.poll(() => page.locator('main tbody tr').count()).toBe(2);
    const headers = await page.locator('main thead th').allTextContents();
    expect(headers).toEqual(['Name', 'Email', 'Role', 'Joined', 'Last active', 'Actions']);

    // The owner has just signed in; the member never has.
    const owner = await cellsOf(page, '(you)');
    expect(owner[0]).toBe(`Email: owner@${org.slug}.test`);
    expect(owner[1]).toBe('Role: Owner');
    expect(owner[2]).toMatch(/^Joined: \w+/);
    expect(owner[3]).toMatch(/^Last active: (now|\d+ sec\. ago|in \d+ sec\.)$/);
    const member = await cellsOf(page, memberId);
    expect(member.slice(0, 2)).toEqual([`Email: ${memberEmail}`, 'Role: Member']);
    expect(member[3]).toBe('Last active: not yet');

    // The id an API user needs, shown and copied.
    const row = rowOf(page, memberId);
    expect(await row.locator('.record-id code').textContent()).toBe(memberId);
    // Named by whose id it copies, not by the id.
    await row.getByRole('button', { name: `Copy id of ${memberEmail}`, exact: true }).click();
    const clipboard = () =>
      page.evaluate(() =>
        (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText(),
      );
    await expect.poll(clipboard).toBe(memberId);

    // One line per member on a desktop: the table fits its box, no column hidden to the right.
    const fits = await page
      .locator('main .table-scroll')
      .first()
      .evaluate((box) => box.scrollWidth - box.clientWidth);
    expect(fits).toBeLessThanOrEqual(0);
    await expectAccessible(page, 'the members table');
    await screenshots(page, 'members-table-owner');

    // On a phone each row is a card whose cells say what they are.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    const labels = await row.locator('td[data-label]').evaluateAll((cells) =>
      cells.map((cell) => {
        const view = cell.ownerDocument.defaultView as unknown as {
          getComputedStyle(element: unknown, pseudo: string): { content: string };
        };
        return view.getComputedStyle(cell, '::before').content;
      }),
    );
    expect(labels).toEqual(['"Email"', '"Role"', '"Joined"', '"Last active"']);
    const sideways = await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
    expect(sideways).toBeLessThanOrEqual(0);
    await expectAccessible(page, 'the members table on a phone, dark');
    await page.screenshot({
      path: `${import.meta.dirname}/screenshots/members-table-owner-phone-dark.png`,
      fullPage: true,
    });
    expect(problems).toEqual([]);
    await close();
  });

  it("shows a member others' names, roles and ids, but not their emails or activity", async () => {
    const { page, problems, close } = await openConsole(browser);
    await signInAs(page, server.url, memberEmail, '/members');
    await expect.poll(() => pageHeading(page).textContent()).toBe('Members');
    await expect.poll(() => page.locator('main tbody tr').count()).toBe(2);
    const headers = await page.locator('main thead th').allTextContents();
    expect(headers).toEqual(['Name', 'Email', 'Role', 'Joined', 'Last active']);
    const owner = await cellsOf(page, org.ownerId);
    expect(owner[0]).toBe('Email: not shown');
    expect(owner[3]).toBe('Last active: not shown');
    const self = await cellsOf(page, '(you)');
    expect(self[0]).toBe(`Email: ${memberEmail}`);
    expect(self[3]).not.toBe('Last active: not shown');
    await expectAccessible(page, "a member's members table");
    await screenshots(page, 'members-table-member');
    expect(problems).toEqual([]);
    await close();
  });
});
