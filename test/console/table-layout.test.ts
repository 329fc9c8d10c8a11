import { join } from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, published } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots, signInAs } from './console-page.js';

// The console's dense tables read as a person reads them, at 1280 px and on a phone: on the Events page
// (docs/console.md, /developers/events) each date whole (its day and its time never broken) and the record an
// event is on ("On") given room to be read at a glance; on the audit log, API keys and Members pages, dates
// whole, headings on one line and the audit log's filters on one row.

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
    // The table fits its box: nothing hides to the right on a desktop.
    const overflow = await page
      .locator('main .table-scroll')
      .evaluate((box) => box.scrollWidth - box.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible(page, 'the Events page at 1280 px');

    await page.setViewportSize({ width: 390, height: 844 });
    await read('390 px');
    // A card as wide as the phone: the whole date on one line.
    expect(await linesOf(times.first()), 'the date on a 390 px phone').toBe(1);
    await page.screenshot({
      path: join(import.meta.dirname, 'screenshots', 'events-layout-390.png'),
      fullPage: true,
    });
    await expectAccessible(page, 'the Events page at 390 px');

    // Back to now at 1280 px: the recent words ("11 sec. ago") on one line too.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.clock.setFixedTime(new Date());
    await page.reload();
    await expect.poll(() => times.first().textContent()).toMatch(/ago$|^now$/);
    await expect.poll(() => on.allTextContents()).toContain('Person Ada Admin');
    await read('1280 px, recent');
    expect(await linesOf(times.first()), 'recent words at 1280 px').toBe(1);
    expect(problems).toEqual([]);
    await close();
  });
});

/** The top of each element's box, rounded. */
const tops = (elements: Locator) =>
  elements.evaluateAll((all) => all.map((element) => Math.round(element.getBoundingClientRect().top)));

describe('the audit log, API keys and Members tables', () => {
  it('keep dates and headings whole, and the audit filters on one row that a phone stacks', {
    timeout: 90_000,
  }, async () => {
    const { page, problems, close } = await openConsole(browser);
    await signInAs(page, server.url, `owner@${org.slug}.test`, '/audit');
    await expect.poll(() => pageHeading(page).textContent()).toBe('Audit log');
    const rows = page.getByRole('table', { name: 'Audit events' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(3);
    for (const when of await rows.locator('th time').all()) {
      const text = (await when.textContent()) ?? '';
      expect(await linesOf(when), `"${text}"`).toBeLessThanOrEqual(2);
      for (const part of await when.locator('span').all()) {
        expect(await linesOf(part), `"${await part.textContent()}" of "${text}"`).toBe(1);
      }
    }
    // The filters: labels level, fields as tall as the Filter button, all on one row.
    const filters = page.getByRole('form', { name: 'Filter the audit log' });
    expect(new Set(await tops(filters.locator('.field label'))).size).toBe(1);
    const fields = filters.locator('.field select, .field input');
    const heights = await fields.evaluateAll((all) =>
      all.map((e) => Math.round(e.getBoundingClientRect().height)),
    );
    const button = (await filters.getByRole('button', { name: 'Filter' }).boundingBox())!;
    expect(new Set([...heights, Math.round(button.height)]).size).toBe(1);
    expect(new Set([...(await tops(fields)), Math.round(button.y)]).size).toBe(1);
    await expectAccessible(page, 'the audit log at 1280 px');
    // On a phone each filter is the form's width, one under another.
    await page.setViewportSize({ width: 390, height: 844 });
    const width = (await filters.boundingBox())!.width;
    for (const field of await filters.locator('.field').all()) {
      expect(Math.round((await field.boundingBox())!.width)).toBe(Math.round(width));
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.goto(`${server.url}/keys`);
    await expect.poll(() => pageHeading(page).textContent()).toBe('API keys');
    const keys = page.getByRole('table', { name: 'API keys' });
    await expect.poll(() => keys.locator('tbody tr').count()).toBeGreaterThan(1);
    const keyDates = keys.locator('td[data-label="Created"], td[data-label="Expires"]');
    expect(await keyDates.count()).toBeGreaterThan(3);
    for (const cell of await keyDates.all()) {
      expect(await linesOf(cell), `"${await cell.textContent()}"`).toBe(1);
    }

    await page.goto(`${server.url}/members`);
    await expect.poll(() => pageHeading(page).textContent()).toBe('Members');
    const members = page.locator('main table').first();
    await expect.poll(() => members.locator('tbody tr').count()).toBeGreaterThan(2);
    for (const heading of await members.locator('thead th').all()) {
      expect(await linesOf(heading), `"${await heading.textContent()}"`).toBeLessThanOrEqual(1);
    }
    for (const cell of await members.locator('td[data-label="Joined"]').all()) {
      expect(await linesOf(cell), `"${await cell.textContent()}"`).toBe(1);
    }
    expect(problems).toEqual([]);
    await close();
  });
});
