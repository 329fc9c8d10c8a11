import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, published } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots, signInAs } from './console-page.js';

// The Events page's table read as a person reads it (docs/console.md, /developers/events): each date whole
// (its day and its time never broken), and the record an event is on ("On") given room to be read at a glance, at 1280 px and on a phone.

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  const adminId = await addMember(server, org, 'admin');
  const adminKey = await createKey(server, org, adminId);
  const renamed = await server.request('PATCH', '/api/v1/me', {
    key: adminKey.key,
    body: { name: 'Ada Admin' },
  });
  expect(renamed.status, renamed.text).toBe(200);
  await addMember(server, org, 'member');
  const key = await server.request('POST', '/api/v1/api-keys', {
    key: org.ownerKey,
    body: { name: 'ci-deploy', grants: { type: 'organization', permissions: ['members:read'] } },
  });
  expect(key.status, key.text).toBe(200);
  await published(server, org.ownerKey, expertBody(`@${org.slug}/event-writer`, '1.0.0'));
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

/** How many lines an element's text takes: the distinct tops of its text's line boxes (within 4 px). */
const linesOf = (element: Locator) =>
  element.evaluate((node) => {
    const document = node.ownerDocument;
    const walker = document.createTreeWalker(node, 4 /* NodeFilter.SHOW_TEXT */);
    const tops: number[] = [];
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(text);
      const rects = Array.from(range.getClientRects()) as Array<{ width: number; top: number }>;
      for (const rect of rects) if (rect.width > 0) tops.push(rect.top);
    }
    tops.sort((a, b) => a - b);
    return tops.filter((top, i) => i === 0 || top - tops[i - 1]! > 4).length;
  });

const WEEK_AND_A_BIT = 10 * 24 * 60 * 60 * 1000;

describe('the Events page', () => {
  it('keeps each date whole and gives the record room, at 1280 px and on a 390 px phone', {
    timeout: 90_000,
  }, async () => {
    const { page, problems, close } = await openConsole(browser);
    // Ten days on, every event is dated in full ("Nov 27, 2026, 1:04 PM"), the longest a "When" reads.
    await page.clock.setFixedTime(new Date(Date.now() + WEEK_AND_A_BIT));
    await signInAs(page, server.url, `owner@${org.slug}.test`, '/developers/events');
    await expect.poll(() => pageHeading(page).textContent()).toBe('Events');
    const items = page.getByRole('table', { name: 'Events' }).locator('tbody tr');
    const on = items.locator('td[data-label="On"]');
    await expect.poll(() => on.allTextContents()).toContain('Person Ada Admin');
    await expect.poll(() => on.allTextContents()).toContain('API key ci-deploy');
    const times = items.locator('th time');
    expect(await times.first().textContent()).toMatch(/^\w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}/);

    const read = async (width: string) => {
      const count = await items.count();
      for (let i = 0; i < count; i++) {
        // A date breaks between its day and its time at most, never inside "Nov 27, 2026".
        const when = (await times.nth(i).textContent()) ?? '';
        expect(await linesOf(times.nth(i)), `"${when}" at ${width}`).toBeLessThanOrEqual(2);
        for (const part of await times.nth(i).locator('span').all()) {
          expect(await linesOf(part), `"${await part.textContent()}" of "${when}" at ${width}`).toBe(1);
        }
        const record = ((await on.nth(i).textContent()) ?? '').trim();
        // A short record ("Person Ada Admin", "API key ci-deploy") on one line; a long one ("Expert version
        // @org-1a2b3c4d/event-writer@1.0.0", an email) in three at most: its kind, then its name.
        const most = record.length <= 32 ? 1 : 3;
        expect(await linesOf(on.nth(i)), `"${record}" at ${width}`).toBeLessThanOrEqual(most);
      }
    };

    // Saved at 1280 and 360 px (nothing may be wider than the phone), for a person to look at.
    await screenshots(page, 'events-layout');
    await read('1280 px');
    // Back to now: the recent words ("11 sec. ago") on one line too.
    await page.clock.setFixedTime(new Date());
    await page.reload();
    await expect.poll(() => times.first().textContent()).toMatch(/ago$|^now$/);
    await expect.poll(() => on.allTextContents()).toContain('Person Ada Admin');
    await read('1280 px, recent');
    expect(await linesOf(times.first()), 'recent words at 1280 px').toBe(1);
    // The table fits its box: nothing hides to the right on a desktop.
    const overflow = await page
      .locator('main .table-scroll')
      .evaluate((box) => box.scrollWidth - box.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible(page, 'the Events page at 1280 px');

    await page.setViewportSize({ width: 390, height: 844 });
    await read('390 px');
    // A card as wide as the phone: the date on one line.
    expect(await linesOf(times.first()), 'the date on a 390 px phone').toBe(1);
    await page.screenshot({
      path: join(import.meta.dirname, 'screenshots', 'events-layout-390.png'),
      fullPage: true,
    });
    await expectAccessible(page, 'the Events page at 390 px');
    expect(problems).toEqual([]);
    await close();
  });
});
