import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, published } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, signInAs } from './console-page.js';

// After every action focus goes to the new content (never back to <body>), so keyboard and screen reader
// users are told what happened and continue from there.

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
  await published(server, org.ownerKey, expertBody(`@${org.slug}/focus-writer`, '1.0.0'));
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

/** What has focus: its tag and its text (or its id for a field). */
const focused = (page: Page) =>
  page.evaluate(() => {
    const active = (globalThis as unknown as { document: { activeElement: HTMLLike | null } }).document
      .activeElement;
    if (!active) return 'nothing';
    return `${active.tagName.toLowerCase()}${active.id ? `#${active.id}` : ''}: ${(active.textContent ?? '').trim()}`;
  });
interface HTMLLike {
  tagName: string;
  id: string;
  textContent: string | null;
}

describe('focus after every action', () => {
  it('lands on the heading of an Expert opened from the list, once its page has loaded', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/?q=focus-writer`);
    await page.getByRole('link', { name: `@${org.slug}/focus-writer` }).click();
    await expect.poll(() => focused(page)).toBe(`h1: @${org.slug}/focus-writer v1.0.0`);
    expect(problems).toEqual([]);
    await close();
  });

  it('moves through creating a key, storing it and revoking one', async () => {
    const { page, problems, close } = await openConsole(browser);
    await signInAs(page, server.url, `owner@${org.slug}.test`, '/keys');
    await page.getByRole('button', { name: 'Create an API key' }).click();
    // The form opens with its first field focused.
    await expect.poll(() => focused(page)).toBe('input#key-name: ');
    await page.keyboard.type('focus-key');
    await page.getByRole('button', { name: 'Create key' }).click();
    // The secret, shown once: its heading takes focus, so the warning is read next.
    await expect.poll(() => focused(page)).toBe('h2#new-key: Your new API key');
    await expectAccessible(page, 'the new key');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    // Back to the button that opened the form.
    await expect.poll(() => focused(page)).toBe('button: Create an API key');
    // Cancel does the same.
    await page.getByRole('button', { name: 'Create an API key' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => focused(page)).toBe('button: Create an API key');

    // Revoking removes the button that opened the dialog: focus goes to the revoked key's row, which says so.
    const row = page.getByRole('row').filter({ hasText: 'focus-key' });
    await row.getByRole('button', { name: 'Revoke…' }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await expect.poll(() => focused(page)).toMatch(/^th: focus-key\s+Revoked/);
    expect(problems).toEqual([]);
    await close();
  });
});
