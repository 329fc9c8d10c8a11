import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/shared/config-file/index.js';
import { expertBody, published } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let personal: TestOrganization;
let team: TestOrganization;
let other: TestOrganization;

const XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  personal = await createOrganization(server, 'personal');
  team = await createOrganization(server, 'team');
  other = await createOrganization(server, 'personal');
  for (const org of [personal, other]) await setPassword(server, org.ownerId);

  const key = personal.ownerKey;
  await published(server, key, expertBody('writer', '1.0.0', { description: 'Turns notes into prose.' }));
  await published(
    server,
    key,
    expertBody('writer', '1.1.0', {
      description: 'Turns notes into prose, and asks first.',
      tags: ['stable'],
      skills: {
        '@service/base': { type: 'mcpStdioSkill', command: 'npx', packageName: '@cadre/base' },
        github: {
          type: 'mcpStdioSkill',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          requiredEnv: ['GITHUB_TOKEN'],
          omit: ['create_issue'],
        },
        search: { type: 'mcpSseSkill', endpoint: 'https://search.example.com/mcp', pick: ['search'] },
        ask: {
          type: 'interactiveSkill',
          tools: {
            confirm: {
              description: 'Asks the user to confirm',
              inputJsonSchema: '{"type":"object","properties":{"question":{"type":"string"}}}',
            },
          },
        },
      },
    }),
  );
  await published(server, key, expertBody('researcher', '1.0.0', { delegates: ['writer@1.0.0'] }));
  await published(server, key, expertBody('xss', '1.0.0', { description: XSS, instruction: XSS }));
  for (let i = 0; i < 23; i++) {
    await published(server, key, expertBody(`bulk-${String(i).padStart(2, '0')}`));
  }
  await published(server, team.ownerKey, expertBody(`@${team.slug}/helper`, '2.0.0'));
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;

async function signIn(page: Page, email: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the registry in the browser', () => {
  it('lists Experts with search as you type, sort and paging', async () => {
    const { page, problems, close } = await openConsole(browser);
    const answer = await page.goto(`${server.url}/`);
    expect(answer?.status()).toBe(200);
    const all = await server.request<{ meta: { total: number } }>('GET', '/registry/experts?take=1');
    await expect.poll(() => page.getByText(`${all.body.meta.total} Experts`).count()).toBe(1);
    expect(await page.locator('.expert-item').count()).toBe(20);
    await screenshots(page, 'registry-list');
    await expectAccessible(page, 'the registry list');

    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => page.getByText('Page 2 of 2').count()).toBe(1);
    await expect.poll(() => page.locator('.expert-item').count()).toBe(all.body.meta.total - 20);

    // A page past the end (an old link): it says so and links the last page, not "Nothing is published yet".
    await page.goto(`${server.url}/?page=9`);
    const past = page.locator('main .empty');
    await expect.poll(() => past.textContent()).toContain('There is no page 9: the list has 2 pages.');
    expect(await page.locator('main').textContent()).not.toContain('Nothing is published yet');
    await past.getByRole('link', { name: 'Go to page 2' }).click();
    await expect.poll(() => page.locator('.expert-item').count()).toBe(all.body.meta.total - 20);

    await page.getByLabel('Search', { exact: true }).fill('wri');
    await expect.poll(() => page.locator('.expert-item').count()).toBe(1);
    expect(await page.locator('.expert-name').first().textContent()).toBe('writer');
    expect(page.url()).toContain('q=wri');

    // A description's words, and the part of a name after its scope, are found too.
    await page.getByLabel('Search', { exact: true }).fill('prose');
    await expect.poll(() => page.url()).toContain('q=prose');
    await expect.poll(() => page.locator('.expert-name').allTextContents()).toEqual(['writer']);
    await page.getByLabel('Search', { exact: true }).fill('helper');
    await expect.poll(() => page.url()).toContain('q=helper');
    await expect.poll(() => page.locator('.expert-name').allTextContents()).toEqual([`@${team.slug}/helper`]);

    await page.getByLabel('Search', { exact: true }).fill('nothing-like-this');
    await expect.poll(() => page.getByText(/No Expert matches/).count()).toBe(1);
    await screenshots(page, 'registry-empty-search');

    await page.getByLabel('Search', { exact: true }).fill('');
    await page.getByLabel('Sort by').selectOption('name');
    await page.getByLabel('Order').selectOption('asc');
    await expect.poll(() => page.locator('.expert-name').first().textContent()).toBe(`@${team.slug}/helper`);
    expect(problems).toEqual([]);
    await close();
  });

  it('shows an Expert by every key form, with versions, skills, delegates and a snippet', async () => {
    const { page, problems, close } = await openConsole(browser);
    const forms: Array<[string, string]> = [
      ['writer', 'writer v1.1.0'],
      ['writer@1.0.0', 'writer v1.0.0'],
      ['writer@stable', 'writer v1.1.0'],
      ['writer@latest', 'writer v1.1.0'],
      [`@${team.slug}/helper@2.0.0`, `@${team.slug}/helper v2.0.0`],
      [`%40${team.slug}%2Fhelper`, `@${team.slug}/helper v2.0.0`],
    ];
    for (const [key, title] of forms) {
      await page.goto(`${server.url}/experts/${key}`);
      await expect.poll(() => heading(page).textContent(), { message: key }).toBe(title);
    }

    await page.goto(`${server.url}/experts/writer@1.1.0`);
    await expect.poll(() => heading(page).textContent()).toBe('writer v1.1.0');
    const skills = page.locator('table');
    await expect.poll(() => skills.getByText('MCP server (SSE)').count()).toBe(1);
    expect(await skills.getByText('npx -y @modelcontextprotocol/server-github').count()).toBe(1);
    expect(await skills.getByText('GITHUB_TOKEN').count()).toBe(1);
    expect(await skills.getByText('Interactive tools').count()).toBe(1);
    await page.getByText('Input schema').click();
    expect(await page.getByText('"question"').count()).toBe(1);
    const versions = page.getByRole('region', { name: 'Versions' });
    expect(await versions.getByRole('link').allTextContents()).toEqual(['1.1.0', '1.0.0']);
    expect(await page.getByRole('region', { name: 'Delegate to it' }).locator('pre').textContent()).toBe(
      '[experts."my-expert"]\ndelegates = ["writer@1.1.0"]',
    );
    await screenshots(page, 'expert-page');
    await expectAccessible(page, 'an Expert page');

    // writer's page names who uses it: researcher pins 1.0.0, so it is named as using another version.
    const usedBy = page.getByRole('region', { name: 'Used by' });
    await expect.poll(() => usedBy.getByRole('link').allTextContents()).toEqual(['researcher@1.0.0']);
    expect(await usedBy.textContent()).toContain('Delegating to other versions of writer');

    await page.goto(`${server.url}/experts/researcher`);
    await page.getByRole('link', { name: 'writer@1.0.0' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('writer v1.0.0');
    await expect.poll(() => page.getByText('This is not the latest version').count()).toBe(1);
    await expect
      .poll(() => page.getByRole('region', { name: 'Used by' }).getByRole('listitem').allTextContents())
      .toEqual(['researcher@1.0.0']);

    await page.goto(`${server.url}/experts/no-such-expert`);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Not found');
    expect(await page.getByRole('alert').textContent()).toContain('Request id');
    await screenshots(page, 'expert-not-found');
    expect(problems).toEqual([]);
    await close();
  });

  it('never runs user text as HTML', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/?q=xss`);
    await expect.poll(() => page.locator('.expert-item').count()).toBe(1);
    expect(await page.locator('.expert-item .description').textContent()).toBe(XSS);
    await page.goto(`${server.url}/experts/xss`);
    await expect.poll(() => page.locator('.instruction pre').textContent()).toBe(XSS);
    expect(await page.locator('main img[src="x"]').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(problems).toEqual([]);
    await close();
  });

  it('answers a page it does not know with the app and status 404, and keeps the APIs JSON', async () => {
    const { page, close } = await openConsole(browser);
    const answer = await page.goto(`${server.url}/no/such/page`);
    expect(answer?.status()).toBe(404);
    await expect.poll(() => heading(page).textContent()).toBe('Page not found');
    await screenshots(page, 'not-found');
    await close();
    for (const path of ['/api/v1/nope', '/registry/nope', '/admin/v1/nope', '/auth/nope']) {
      const res = await server.request('GET', path, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toContain('application/json');
    }
  });

  it('follows the system dark preference', async () => {
    const { page, close } = await openConsole(browser, { colorScheme: 'dark' });
    await page.goto(`${server.url}/experts/writer`);
    await expect.poll(() => heading(page).textContent()).toBe('writer v1.1.0');
    const background = await page
      .locator('body')
      .evaluate(
        (body) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
          ).getComputedStyle(body).backgroundColor,
      );
    expect(background).toBe('rgb(18, 19, 26)');
    await screenshots(page, 'expert-page-dark');
    await expectAccessible(page, 'an Expert page, dark');
    await close();
  });
});

describe('signing in and owner actions', () => {
  it('signs in from an Expert page, returns to it, and manages the version', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/experts/writer@1.1.0`);
    await expect.poll(() => heading(page).textContent()).toBe('writer v1.1.0');
    expect(await page.getByText('Manage this version').count()).toBe(0);

    await page.getByRole('link', { name: 'Sign in' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('Sign in');
    await page.getByLabel('Email').fill(`owner@${personal.slug}.test`);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong email or password');
    await screenshots(page, 'sign-in-error');
    await expectAccessible(page, 'the sign-in page with an error');

    await signIn(page, `owner@${personal.slug}.test`);
    await expect.poll(() => heading(page).textContent()).toBe('writer v1.1.0');
    await expect.poll(() => page.getByText('Manage this version').count()).toBe(1);

    await page.getByRole('button', { name: 'Deprecate' }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Marked deprecated' }).count())
      .toBe(1);
    await expect.poll(() => page.locator('.badges .badge-deprecated').count()).toBe(1);

    await page.getByLabel('Custom tags (comma separated)').fill('stable, beta');
    await page.getByRole('button', { name: 'Save tags' }).click();
    await expect.poll(() => page.locator('.badges').textContent()).toContain('beta');
    const tags = await server.request<{ data: { expert: { tags: string[] } } }>(
      'GET',
      '/registry/experts/writer@1.1.0',
    );
    expect(tags.body.data.expert.tags).toEqual(['latest', 'stable', 'beta']);

    await page.getByRole('button', { name: 'Disable…' }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.textContent()).toContain('Disabling is final');
    await screenshots(page, 'disable-confirmation');
    await expectAccessible(page, 'the disable confirmation');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    const stillDeprecated = await server.request<{ data: { expert: { status: string } } }>(
      'GET',
      '/registry/experts/writer@1.1.0',
    );
    expect(stillDeprecated.body.data.expert.status).toBe('deprecated');
    await page.getByRole('button', { name: 'Disable…' }).click();
    await page.getByRole('button', { name: 'Disable for good' }).click();
    await expect.poll(() => page.locator('.badges .badge-disabled').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Disable…' }).count()).toBe(0);
    await screenshots(page, 'expert-owner-actions');
    // The list and the versions mark it too.
    expect(await page.getByRole('region', { name: 'Versions' }).locator('.badge-disabled').count()).toBe(1);
    await page.goto(`${server.url}/?q=writer`);
    await expect.poll(() => page.locator('.expert-item .badge-disabled').count()).toBe(1);

    // writer@1.0.0 is a delegate of researcher: the refusal is shown in words.
    await page.goto(`${server.url}/experts/writer@1.0.0`);
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete this version' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('cannot be deleted');
    expect(await page.getByRole('alert').textContent()).toContain('researcher');
    // The way out is offered right there, in words, not as an API call to make by hand.
    const refusal = page.getByRole('alert');
    expect(await refusal.textContent()).not.toContain('POST');
    const disableInstead = refusal.getByRole('button', { name: 'Disable instead…' });
    expect(await disableInstead.count()).toBe(1);
    // The refusal takes focus where the dialog closed, and sits with the buttons, in view.
    await expect.poll(() => refusal.evaluate((node) => node === node.ownerDocument.activeElement)).toBe(true);
    const box = await refusal.boundingBox();
    expect(box && box.y + box.height).toBeLessThanOrEqual(page.viewportSize()?.height ?? 0);
    await screenshots(page, 'delete-refused');
    await expectAccessible(page, 'a refused delete');
    await disableInstead.click();
    await page.getByRole('button', { name: 'Disable for good' }).click();
    await expect.poll(() => page.locator('.badges .badge-disabled').count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Marked disabled.' }).count()).toBe(1);

    await page.goto(`${server.url}/experts/bulk-00`);
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete this version' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Not found');
    expect((await server.request('GET', '/registry/experts/bulk-00')).status).toBe(404);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Sign in' }).count()).toBe(1);
    expect(problems).toEqual([]);
    await close();
  });

  it("offers no owner actions on another organization's Expert", async () => {
    const { page, close } = await openConsole(browser);
    await page.goto(`${server.url}/sign-in?next=/experts/researcher`);
    await signIn(page, `owner@${other.slug}.test`);
    await expect.poll(() => heading(page).textContent()).toBe('researcher v1.0.0');
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    expect(await page.getByText('Manage this version').count()).toBe(0);
    await close();
  });

  it('sends an expired session to sign in, then back to the page', async () => {
    const { page, close } = await openConsole(browser);
    await page.goto(`${server.url}/sign-in?next=/experts/researcher`);
    await signIn(page, `owner@${personal.slug}.test`);
    await expect.poll(() => page.getByText('Manage this version').count()).toBe(1);
    await server.context.sessions.revokeAllForUser(personal.ownerId);

    await page.getByRole('button', { name: 'Deprecate' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('Sign in');
    expect(await page.getByText('Your session has ended').count()).toBe(1);
    await signIn(page, `owner@${personal.slug}.test`);
    await expect.poll(() => heading(page).textContent()).toBe('researcher v1.0.0');
    expect(new URL(page.url()).pathname).toBe('/experts/researcher');
    await close();
  });

  it('never returns to another origin after sign-in', async () => {
    const { page, close } = await openConsole(browser);
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      await page.goto(`${server.url}/sign-in?next=${encodeURIComponent(next)}`);
      await signIn(page, `owner@${other.slug}.test`);
      await expect.poll(() => heading(page).textContent()).toBe('Experts');
      expect(new URL(page.url()).origin).toBe(server.url);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => page.getByRole('link', { name: 'Sign in' }).count()).toBe(1);
    }
    await close();
  });

  it('works with the keyboard alone', async () => {
    const { page, close } = await openConsole(browser);
    await page.goto(`${server.url}/`);
    await expect.poll(() => page.locator('.expert-item').count()).toBe(20);
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Skip to content');
    // Search, then follow the only result, by keys.
    await page.getByLabel('Search', { exact: true }).focus();
    await page.keyboard.type('researcher');
    await expect.poll(() => page.locator('.expert-item').count()).toBe(1);
    await page.keyboard.press('Tab');
    // Leaving the field searched at once (no search still waiting to land after the link is followed).
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('researcher');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('researcher');
    await page.keyboard.press('Enter');
    await expect.poll(() => heading(page).textContent()).toBe('researcher v1.0.0');

    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Email').focus();
    await page.keyboard.type(`owner@${other.slug}.test`);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    await close();
  });
});

describe('the cadre.toml playground', () => {
  it('shows the validator’s diagnostics live, the same as the CLI’s, and offers the JSON Schema', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/playground`);
    const summary = page.locator('#playground-summary');
    await expect.poll(() => summary.textContent()).toBe('1 error, 1 warning.');
    const editor = page.getByLabel('cadre.toml', { exact: true });
    const text = await editor.inputValue();
    const cli = parseConfig(text, { path: 'cadre.toml' });
    const expected = cli.ok ? cli.warnings : cli.diagnostics;
    const shown = await page.locator('.diagnostic-message').allTextContents();
    expect(shown).toEqual(expected.map((d) => d.message));
    expect(await page.locator('.diagnostics').textContent()).toContain('line 4, column 1');
    expect(await page.locator('.diagnostics').textContent()).toContain('did you mean "maxSteps"?');
    await screenshots(page, 'playground');
    await expectAccessible(page, 'the playground');

    await editor.fill(text.replace('maxStep =', 'maxSteps =').replace('"strin"', '"string"'));
    await expect.poll(() => summary.textContent()).toBe('Valid: 2 Experts, no problems.');

    await editor.fill('model = [');
    await expect.poll(() => page.locator('.diagnostic-error').count()).toBe(1);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download JSON Schema' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('cadre.schema.json');
    const saved = join(mkdtempSync(join(tmpdir(), 'cadre-schema-')), 'cadre.schema.json');
    await file.saveAs(saved);
    const schema = JSON.parse(readFileSync(saved, 'utf8')) as { $id: string };
    rmSync(dirname(saved), { recursive: true });
    expect(schema.$id).toBe('https://cadre.dev/schemas/cadre.toml.json');
    expect(problems).toEqual([]);
    await close();
  });
});
