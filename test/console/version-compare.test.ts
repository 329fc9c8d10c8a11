import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPENDENTS_DEPTH_LIMIT } from '../../src/modules/supply-chain/dependents.js';
import { expertBody, published } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let personal: TestOrganization;
let team: TestOrganization;

const XSS = '<img src=x onerror="window.__pwned = 1">';
const LONG_WORD = 'x'.repeat(300);

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  personal = await createOrganization(server, 'personal');
  team = await createOrganization(server, 'team');
  const key = personal.ownerKey;
  const base = { type: 'mcpStdioSkill' as const, command: 'npx', packageName: '@cadre/base' };
  await published(
    server,
    key,
    expertBody('writer', '1.0.0', {
      description: 'Turns notes into prose.',
      instruction: 'You are a writer.\nWrite short sentences.\nNever invent facts.\nSign with your name.',
      skills: {
        '@service/base': base,
        github: {
          type: 'mcpStdioSkill',
          command: 'npx',
          packageName: '@modelcontextprotocol/server-github@1.0.0',
          requiredEnv: ['GITHUB_TOKEN'],
          args: ['--read-only'],
          pick: ['search_code'],
        },
        old: { type: 'mcpStdioSkill', command: 'npx', packageName: 'old-tool@1.0.0' },
      },
    }),
  );
  await published(server, key, expertBody('helper', '1.0.0'));
  await published(
    server,
    key,
    expertBody('writer', '1.1.0', {
      description: `Turns notes into prose, and searches the web. ${LONG_WORD}`,
      minRuntimeVersion: '1.0.0',
      instruction: `You are a writer.\nWrite short sentences.\nSearch before you write.\n${XSS}\nSign with your name.`,
      skills: {
        '@service/base': base,
        github: {
          type: 'mcpStdioSkill',
          command: 'npx',
          packageName: '@modelcontextprotocol/server-github@1.0.0',
          args: ['--read-only', '--verbose'],
          requiredEnv: ['GITHUB_TOKEN', 'GITHUB_ORG'],
        },
        search: { type: 'mcpSseSkill', endpoint: 'https://search.example.com/mcp' },
      },
      delegates: ['helper@1.0.0'],
    }),
  );
  // Who uses writer@1.1.0: editor directly, chief through editor; reviewer pins 1.0.0.
  await published(server, key, expertBody('editor', '1.0.0', { delegates: ['writer@1.1.0'] }));
  await published(server, key, expertBody('chief', '1.0.0', { delegates: ['editor@1.0.0'] }));
  await published(server, key, expertBody('reviewer', '1.0.0', { delegates: ['writer@1.0.0'] }));
  // A chain longer than the dependents walk follows: link-1 → … → link-9 → root.
  await published(server, key, expertBody('root', '1.0.0'));
  let below = 'root@1.0.0';
  for (let level = 1; level <= DEPENDENTS_DEPTH_LIMIT + 1; level++) {
    await published(server, key, expertBody(`link-${level}`, '1.0.0', { delegates: [below] }));
    below = `link-${level}@1.0.0`;
  }
  // One instruction line reworded: the words that changed stand out, the rest of the line does not.
  const poem = (second: string) => `You are a poet.\n${second}\nRhyme when you can.`;
  await published(server, key, expertBody('poet', '1.0.0', { instruction: poem('Write short poems.') }));
  await published(server, key, expertBody('poet', '1.1.0', { instruction: poem('Write vivid poems.') }));
  // Through a moving tag: anthologist names poet@latest (today 1.1.0), publisher pins anthologist.
  await published(server, key, expertBody('anthologist', '1.0.0', { delegates: ['poet@latest'] }));
  await published(server, key, expertBody('publisher', '1.0.0', { delegates: ['anthologist@1.0.0'] }));
  const scoped = `@${team.slug}/planner`;
  await published(server, team.ownerKey, expertBody(scoped, '2.0.0'));
  await published(server, team.ownerKey, expertBody(scoped, '2.1.0', { description: 'Plans, better.' }));
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;

describe('comparing versions in the browser', () => {
  it('picks two versions on the Expert page and shows what changed, widening changes said in words', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/experts/writer@1.1.0`);
    await expect.poll(() => heading(page).textContent()).toBe('writer v1.1.0');
    const form = page.getByRole('form', { name: 'Compare two versions' });
    expect(await form.getByLabel('From').inputValue()).toBe('1.0.0');
    expect(await form.getByLabel('To').inputValue()).toBe('1.1.0');
    await screenshots(page, 'expert-compare-form');
    await expectAccessible(page, 'an Expert page with the compare form');
    await form.getByRole('button', { name: 'Compare' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('Compare versions of writer');
    const url = new URL(page.url());
    expect(url.pathname).toBe('/experts/writer/compare');
    expect(url.searchParams.get('from')).toBe('1.0.0');
    expect(url.searchParams.get('to')).toBe('1.1.0');

    const changes = page.getByRole('region', { name: 'Changes' }).getByRole('listitem');
    await expect.poll(() => changes.count()).toBeGreaterThan(0);
    const widening = changes.filter({ hasText: 'Widens access' });
    const reasons = (await widening.locator('.diff-why').allTextContents()).map((text) => text.trim());
    expect(reasons).toEqual([
      'Why: skill "github" no longer limits its tools with "pick" (every tool is exposed)',
      'Why: skill "github" reads new environment variables: GITHUB_ORG',
      'Why: new skill "search" (mcpSseSkill)',
      'Why: new delegate "helper@1.0.0"',
    ]);
    // The summary says it once, in words, with every reason.
    const summary = page.getByRole('note').filter({ hasText: 'can reach more than' });
    expect(await summary.locator('li').count()).toBe(4);
    expect(await summary.locator('.notice-title').textContent()).toContain('4 changes widen access');
    // Non-widening changes are listed in words too.
    const fields = await changes.locator('.diff-field').allTextContents();
    expect(fields).toEqual(
      expect.arrayContaining([
        'Description',
        'Minimum runtime version',
        'Skill "github": picked tools',
        'Skill "github": arguments',
        'Skill "old"',
        'Delegate',
      ]),
    );
    expect(await changes.filter({ hasText: 'Skill "old"' }).locator('.diff-kind').textContent()).toBe(
      'Removed',
    );

    // The instruction as lines, each added or removed line said in words, user text never markup.
    const lines = page.getByRole('region', { name: 'Instruction line diff' });
    expect(await lines.locator('.diff-add').count()).toBe(2);
    expect(await lines.locator('.diff-remove').count()).toBe(1);
    expect(await lines.locator('.diff-add').first().textContent()).toContain('Search before you write.');
    expect(await lines.locator('.diff-remove .visually-hidden').textContent()).toBe('Removed line: ');
    expect(await lines.locator('.diff-remove .diff-text').textContent()).toBe('Never invent facts.');
    expect(await lines.getByText(XSS, { exact: true }).count()).toBe(1);
    expect(await page.locator('main img[src="x"]').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();

    await screenshots(page, 'compare-versions');
    await expectAccessible(page, 'the compare view');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'the compare view, dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Swap: the address says the other way round; going back, only the skill 1.1.0 dropped comes back new.
    await page.getByRole('link', { name: 'Swap' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('from')).toBe('1.1.0');
    // The labels follow: From is now the newer one.
    await expect
      .poll(() => page.locator('label').filter({ hasText: /^From/ }).textContent())
      .toBe('From (newer)');
    expect(await page.locator('label').filter({ hasText: /^To/ }).textContent()).toBe('To (older)');
    await expect
      .poll(() =>
        page.getByRole('note').filter({ hasText: 'can reach more than' }).locator('li').allTextContents(),
      )
      .toEqual(['new skill "old" (mcpStdioSkill)']);
    expect(problems).toEqual([]);
    await close();
  });

  it('shows an added or removed skill in the skills table and marks the changed words, never raw JSON', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/experts/writer/compare?from=1.0.0&to=1.1.0`);
    const changes = page.getByRole('region', { name: 'Changes' });
    const added = changes.getByRole('listitem').filter({ hasText: 'Skill "search"' });
    await expect.poll(() => added.count()).toBe(1);
    // The skill as the Expert page shows it: a table with its type and endpoint, in words.
    const table = added.getByRole('table');
    expect(await table.getByRole('rowheader').textContent()).toContain('search');
    expect(await table.getByRole('cell').first().textContent()).toBe('MCP server (SSE)');
    expect(await table.textContent()).toContain('https://search.example.com/mcp');
    const removed = changes.getByRole('listitem').filter({ hasText: 'Skill "old"' });
    expect(await removed.getByRole('table').textContent()).toContain('old-tool@1.0.0');
    // No change is shown as JSON.
    expect(await changes.textContent()).not.toContain('"type"');
    expect(await changes.locator('pre').filter({ hasText: '{' }).count()).toBe(0);

    // The description: one text, the words taken out and put in marked (and said) as such.
    const description = changes.getByRole('listitem').filter({ hasText: 'Description' });
    expect(await description.locator('ins').first().textContent()).toContain('searches');
    // Words were only added: nothing is marked as taken out.
    expect(await description.locator('del').count()).toBe(0);
    expect(await description.locator('.diff-words').textContent()).toContain('Turns notes into');
    await screenshots(page, 'compare-skills-table');
    await expectAccessible(page, 'the compare view with skills tables');

    // A reworded instruction line: only the changed words are marked, on both lines.
    await page.goto(`${server.url}/experts/poet/compare?from=1.0.0&to=1.1.0`);
    const lines = page.getByRole('region', { name: 'Instruction line diff' });
    await expect.poll(() => lines.locator('.diff-add').count()).toBe(1);
    expect(await lines.locator('.diff-add ins').allTextContents()).toEqual(['Added: vivid']);
    expect(await lines.locator('.diff-remove del').allTextContents()).toEqual(['Removed: short']);
    expect(await lines.locator('.diff-add .diff-text').textContent()).toBe('Write Added: vivid poems.');
    expect(await lines.locator('.diff-same').first().textContent()).toContain('You are a poet.');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshots(page, 'compare-word-diff-dark');
    await expectAccessible(page, 'the word diff, dark');
    expect(problems).toEqual([]);
    await close();
  });

  it('opens a deep link to a scoped name, and says so when the two versions are the same', async () => {
    const { page, problems, close } = await openConsole(browser);
    const scoped = `@${team.slug}/planner`;
    await page.goto(`${server.url}/experts/${scoped}/compare?from=2.0.0&to=2.1.0`);
    await expect.poll(() => heading(page).textContent()).toBe(`Compare versions of ${scoped}`);
    await expect.poll(() => page.getByText('No change widens access').count()).toBe(1);
    expect(await page.getByRole('link', { name: `${scoped}@2.1.0` }).count()).toBe(1);
    // The two sides' integrity digests are shown.
    expect(await page.locator('.compare-sides code').count()).toBe(2);
    await page.getByLabel('To (newer)').selectOption('2.0.0');
    await expect.poll(() => page.getByText('Choose two different versions to compare.').count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('to')).toBe('2.0.0');

    // Without from and to: latest against the version before it.
    await page.goto(`${server.url}/experts/writer/compare`);
    await expect.poll(() => page.getByLabel('From (older)').inputValue()).toBe('1.0.0');
    expect(await page.getByLabel('To (newer)').inputValue()).toBe('1.1.0');
    // One version only: nothing to compare, in words.
    await page.goto(`${server.url}/experts/helper/compare`);
    await expect.poll(() => page.getByText('has one version only').count()).toBe(1);
    // An unknown version: the API's 404 in words, with Retry.
    await page.goto(`${server.url}/experts/writer/compare?from=0.9.0&to=1.1.0`);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Not found');
    expect(problems).toEqual([]);
    await close();
  });
});

describe('"Used by" in the browser', () => {
  it('says when a path goes through a moving tag, not as if it were pinned', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/experts/poet@1.1.0`);
    const usedBy = page.getByRole('region', { name: 'Used by' });
    await expect.poll(() => usedBy.locator('li').count()).toBe(2);
    expect(await usedBy.locator('li').first().textContent()).toBe(
      'anthologist@1.0.0 names poet@latest, a tag that moves: it uses this version while the tag is here',
    );
    expect(await usedBy.locator('.dependents-through li').textContent()).toBe(
      'publisher@1.0.0 (through anthologist@1.0.0, which names poet@latest, a tag that moves)',
    );
    await screenshots(page, 'used-by-moving-tag');
    await expectAccessible(page, '"Used by" through a moving tag');
    expect(problems).toEqual([]);
    await close();
  });

  it('lists direct and transitive dependents with their path, and versions of the name used elsewhere', async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/experts/writer@1.1.0`);
    const usedBy = page.getByRole('region', { name: 'Used by' });
    await expect.poll(() => usedBy.locator('li').count()).toBe(2);
    expect(await usedBy.locator('li').first().textContent()).toBe('editor@1.0.0');
    expect(await usedBy.locator('.dependents-through li').textContent()).toBe(
      'chief@1.0.0 (through editor@1.0.0)',
    );
    expect(await usedBy.getByText('Delegating to other versions of writer').textContent()).toContain(
      'reviewer@1.0.0',
    );
    await usedBy.getByRole('link', { name: 'chief@1.0.0' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('chief v1.0.0');
    // Nobody uses chief: the empty state says so.
    await expect
      .poll(() => page.getByRole('region', { name: 'Used by' }).textContent())
      .toContain('No Expert delegates to chief@1.0.0, directly or through another.');
    await screenshots(page, 'used-by-empty');

    // A chain longer than the walk: the limit is said.
    await page.goto(`${server.url}/experts/root@1.0.0`);
    const rootUsedBy = page.getByRole('region', { name: 'Used by' });
    await expect.poll(() => rootUsedBy.locator('li').count()).toBe(DEPENDENTS_DEPTH_LIMIT);
    expect(await rootUsedBy.getByRole('note').textContent()).toContain(
      `Chains are followed ${DEPENDENTS_DEPTH_LIMIT} delegations up`,
    );
    await screenshots(page, 'used-by-chain');
    await expectAccessible(page, 'an Expert page with "Used by"');
    expect(problems).toEqual([]);
    await close();
  });
});
