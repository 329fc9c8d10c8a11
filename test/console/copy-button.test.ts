import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expertBody, published, uniqueName } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, signInAs } from './console-page.js';

// The copy buttons (components/CopyButton.tsx) are named by what they copy, never by the text itself: a
// screen reader reading a whole API key or snippet as a button's name is noise, and a secret said aloud.

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
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const clipboard = (page: Page) =>
  page.evaluate(() =>
    (
      globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
    ).navigator.clipboard.readText(),
  );

/** The copy feedback a screen reader hears: the polite live region after the button. */
const announced = (page: Page) =>
  page
    .locator('[aria-live="polite"]')
    .allTextContents()
    .then((texts) => texts.filter(Boolean));

describe('copy buttons', () => {
  it("name the new API key and each key's id by what they copy, and copy from the keyboard", async () => {
    const { context, page, problems, close } = await openConsole(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signInAs(page, server.url, `owner@${org.slug}.test`, '/keys');
    await expect.poll(() => pageHeading(page).textContent()).toBe('API keys');

    await page.getByRole('button', { name: 'Create an API key' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('copied-key');
    await page.getByLabel(/^Everything your role allows/).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByTestId('new-secret').count()).toBe(1);
    const secret = (await page.getByTestId('new-secret').textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    // No button is named by the secret; the key's button says what it copies, with the words it shows.
    expect(await page.getByRole('button', { name: secret }).count()).toBe(0);
    const copy = page.getByRole('button', { name: 'Copy API key', exact: true });
    expect(await copy.count()).toBe(1);
    expect(await copy.textContent()).toBe('Copy API key');

    // From the keyboard: focus it and press Enter; the button says "Copied" and the live region says so.
    await copy.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => clipboard(page)).toBe(secret);
    await expect.poll(() => announced(page)).toEqual(['Copied to the clipboard']);
    expect(await page.getByRole('button', { name: 'Copied', exact: true }).count()).toBe(1);
    await expectAccessible(page, 'a new API key with its copy button');
    // The feedback passes, and the button is named again by what it copies.
    await expect.poll(() => copy.count()).toBe(1);
    expect(await announced(page)).toEqual([]);

    // The key's id in its row: the button names the key, not the id.
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const row = page.locator('main tbody tr').filter({ hasText: 'copied-key' });
    await expect.poll(() => row.count()).toBe(1);
    const id = (await row.locator('.record-id code').textContent()) ?? '';
    expect(id).toMatch(/^\w+$/);
    expect(await row.getByRole('button', { name: id }).count()).toBe(0);
    expect(await row.getByRole('button', { name: 'Copy id of copied-key', exact: true }).count()).toBe(1);
    expect(problems).toEqual([]);
    await close();
  });

  it("name an Expert's key and its cadre.toml snippet, never spelling the snippet out", async () => {
    const name = `@${org.slug}/${uniqueName('copied')}`;
    await published(server, org.ownerKey, expertBody(name, '1.0.0'));
    const { context, page, problems, close } = await openConsole(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(`${server.url}/experts/${name}@1.0.0`);
    await expect.poll(() => pageHeading(page).textContent()).toContain(name);

    const key = page.getByRole('button', { name: 'Copy key of this Expert version', exact: true });
    await expect.poll(() => key.count()).toBe(1);
    expect(await key.textContent()).toBe('Copy key');
    expect(await page.getByRole('button', { name: `${name}@1.0.0` }).count()).toBe(0);

    const snippet = page.getByRole('button', { name: 'Copy snippet', exact: true });
    expect(await snippet.count()).toBe(1);
    const shown = (await page.locator('pre.code').first().textContent()) ?? '';
    expect(shown).toContain(name);
    await snippet.click();
    await expect.poll(() => clipboard(page)).toBe(shown);
    await expect.poll(() => announced(page)).toEqual(['Copied to the clipboard']);
    await expectAccessible(page, "an Expert's page with its copy buttons");
    expect(problems).toEqual([]);
    await close();
  });

  it('says "Copied" for two seconds after the last click, not the first', async () => {
    const name = `@${org.slug}/${uniqueName('recopied')}`;
    await published(server, org.ownerKey, expertBody(name, '1.0.0'));
    const { context, page, problems, close } = await openConsole(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    // The page's clock is the test's: time passes only when the test says so.
    await page.clock.install();
    await page.goto(`${server.url}/experts/${name}@1.0.0`);
    await expect.poll(() => pageHeading(page).textContent()).toContain(name);
    const snippet = page.locator('.expert-side button', { hasText: /^Copy snippet$|^Copied$/ });
    await expect.poll(() => snippet.textContent()).toBe('Copy snippet');

    await snippet.click();
    await expect.poll(() => snippet.textContent()).toBe('Copied');
    await page.clock.runFor(1_500);
    await snippet.click();
    await expect
      .poll(() => clipboard(page))
      .toBe((await page.locator('pre.code').first().textContent()) ?? '');
    // 2.1 s after the first click, 0.6 s after the second: still "Copied".
    await page.clock.runFor(600);
    expect(await snippet.textContent()).toBe('Copied');
    await page.clock.runFor(1_500);
    await expect.poll(() => snippet.textContent()).toBe('Copy snippet');
    expect(problems).toEqual([]);
    await close();
  });
});
