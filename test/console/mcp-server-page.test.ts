import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, npmServer, publish, remoteServer, serverName } from '../mcp/helpers.js';
import { baseSkill, expertBody, publish as publishExpert, uniqueName } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { addMember, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots, signInAs } from './console-page.js';

// A catalog server's page in the console (docs/mcp-registry.md "The console"): the links between the MCP
// catalog and the Experts (an Expert's skill links to its catalog server's page, which lists the Experts that
// use it), the mcp.json VS Code writes to install a version, and the status actions of owners and admins.

/** Where mcp.json asks VS Code for what a person types: `${input:id}`. */
const input = (id: string) => `\${input:${id}}`;

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

describe("an MCP catalog server's page", () => {
  it('is reached from the skill of an Expert that runs it, and lists that Expert among its users', {
    timeout: 180_000,
  }, async () => {
    const name = serverName('files');
    const identifier = `@example/files-${randomBytes(3).toString('hex')}`;
    for (const version of ['1.0.0', '1.1.0']) {
      const body = npmServer(name, version);
      body.packages[0]!.identifier = identifier;
      await publish(server, org, body);
    }
    const expert = `@${org.slug}/${uniqueName('files-user')}`;
    const published = await publishExpert(
      server,
      org.ownerKey,
      expertBody(expert, '1.0.0', {
        skills: {
          '@service/base': baseSkill,
          files: { type: 'mcpStdioSkill', command: 'npx', packageName: `${identifier}@1.0.0` },
        } as never,
      }),
    );
    expect(published.status, published.text).toBe(200);

    const owner = await openConsole(browser);
    const { page } = owner;
    await signInAs(page, server.url, `owner@${org.slug}.test`, `/experts/${expert}@1.0.0`);
    await expect.poll(() => pageHeading(page).textContent()).toContain(expert);
    const skills = page.getByRole('table', { name: 'Skills' });
    const entry = skills.getByRole('link', { name: `${name} 1.0.0` });
    await expect.poll(() => entry.count()).toBe(1);
    await expect
      .poll(() => skills.getByRole('row').filter({ hasText: 'files' }).textContent())
      .toContain('In the MCP catalog');
    // The base skill runs no catalog package: no link.
    await expect.poll(() => skills.getByRole('link').count()).toBe(1);
    await expectAccessible(page, "an Expert's page with a skill's catalog link");

    await entry.click();
    await expect.poll(() => pageHeading(page).textContent()).toBe(name);
    expect(new URL(page.url()).pathname).toBe(`/mcp-catalog/servers/${name}`);
    const versions = page.getByRole('table', { name: `Versions of ${name}, newest first` });
    await expect.poll(() => versions.getByRole('row').count()).toBe(3);
    await expect.poll(() => versions.getByRole('row').nth(1).textContent()).toContain('1.1.0 (latest)');
    const users = page.getByRole('region', { name: 'Used by Experts' });
    const user = users.getByRole('link', { name: `${expert}@1.0.0` });
    await expect.poll(() => user.count()).toBe(1);
    await expect.poll(() => users.textContent()).toContain('skill files runs version 1.0.0');
    await expectAccessible(page, "an MCP catalog server's page");
    await screenshots(page, 'mcp-server');

    // Back to the Expert from the server, and from the catalog's list to the server.
    await user.click();
    await expect.poll(() => pageHeading(page).textContent()).toContain(expert);
    await page.goto(`${server.url}/mcp-catalog`);
    await page.getByRole('table', { name: 'Servers and their versions' }).getByRole('link').first().click();
    await expect.poll(() => pageHeading(page).textContent()).toBe(name);
    expect(owner.problems).toEqual([]);
    await owner.close();
  });

  it('says so when no Expert uses the server', { timeout: 120_000 }, async () => {
    const name = serverName('unused');
    await publish(server, org, npmServer(name, '3.0.0'));
    const owner = await openConsole(browser);
    const { page } = owner;
    await signInAs(page, server.url, `owner@${org.slug}.test`, `/mcp-catalog/servers/${name}`);
    await expect.poll(() => pageHeading(page).textContent()).toBe(name);
    await expect
      .poll(() => page.getByRole('region', { name: 'Used by Experts' }).textContent())
      .toContain('No Expert of your organization uses it.');
    expect(owner.problems).toEqual([]);
    await owner.close();
  });

  it('shows the mcp.json VS Code writes for the latest version or a chosen one, secrets only as inputs', {
    timeout: 180_000,
  }, async () => {
    const name = serverName('a-server-with-a-rather-long-name-to-show-how-the-page-wraps-it');
    for (const version of ['1.0.0', '1.1.0']) await publish(server, org, npmServer(name, version));
    const remote = serverName('remote');
    await publish(server, org, remoteServer(remote, '1.0.0'));

    const owner = await openConsole(browser);
    const { page, context } = owner;
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signInAs(page, server.url, `owner@${org.slug}.test`, `/mcp-catalog/servers/${name}`);
    await expect.poll(() => pageHeading(page).textContent()).toBe(name);
    const install = page.getByRole('region', { name: 'Install in VS Code' });
    const snippet = install.getByRole('region', { name: /^mcp\.json for / });
    const shown = async () => JSON.parse((await snippet.textContent()) ?? 'null') as unknown;
    const expected = (version: string) => ({
      servers: {
        [name]: {
          type: 'stdio',
          command: 'npx',
          args: [`@example/tool@${version}`, '.'],
          env: { EXAMPLE_TOKEN: input('EXAMPLE_TOKEN') },
        },
      },
      inputs: [{ id: 'EXAMPLE_TOKEN', type: 'promptString', description: '', password: true }],
    });
    // The latest version by default; another when chosen.
    await expect.poll(() => install.getByLabel('Version').inputValue()).toBe('1.1.0');
    await expect.poll(shown).toEqual(expected('1.1.0'));
    await install.getByLabel('Version').selectOption('1.0.0');
    await expect.poll(shown).toEqual(expected('1.0.0'));
    await install.getByRole('button', { name: /^Copy mcp\.json/ }).click();
    const clipboard = () =>
      page.evaluate(() =>
        (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText(),
      );
    await expect.poll(async () => JSON.parse(await clipboard()) as unknown).toEqual(expected('1.0.0'));
    await install.getByLabel('Version').selectOption('1.1.0');
    await expectAccessible(page, "an MCP catalog server's page with its install snippet");
    await screenshots(page, 'mcp-server-install');

    // A remote: an http entry whose secret header is asked for.
    await page.goto(`${server.url}/mcp-catalog/servers/${remote}`);
    await expect.poll(() => pageHeading(page).textContent()).toBe(remote);
    await expect.poll(shown).toEqual({
      servers: {
        [remote]: {
          type: 'http',
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: `Bearer ${input('token')}` },
        },
      },
      inputs: [{ id: 'token', type: 'promptString', description: '', password: true }],
    });
    expect(owner.problems).toEqual([]);
    await owner.close();
  });

  it('lets an owner deprecate, un-deprecate, delete and restore a version; a member sees no button', {
    timeout: 240_000,
  }, async () => {
    const name = serverName('status');
    for (const version of ['1.0.0', '2.0.0']) await publish(server, org, npmServer(name, version));
    const official = async (version: string) => {
      const res = await server.request(
        'GET',
        `/mcp/${org.slug}/v0.1/servers/${enc(name)}/versions/${version}?include_deleted=true`,
        { key: org.ownerKey },
      );
      return (
        res.body as { _meta: Record<string, { status: string; statusMessage?: string; isLatest: boolean }> }
      )._meta['io.modelcontextprotocol.registry/official'];
    };

    const owner = await openConsole(browser);
    const { page } = owner;
    await signInAs(page, server.url, `owner@${org.slug}.test`, `/mcp-catalog/servers/${name}`);
    await expect.poll(() => pageHeading(page).textContent()).toBe(name);
    const versions = page.getByRole('table', { name: `Versions of ${name}, newest first` });
    const rowOf = (version: string) => versions.getByRole('row').filter({ hasText: version });
    const dialog = page.getByRole('dialog');
    const outcome = page.getByRole('region', { name: 'Versions' }).getByRole('status');

    // Deprecate 2.0.0 with a message: the page and the v0.1 _meta say it.
    await rowOf('2.0.0').getByRole('button', { name: 'Deprecate 2.0.0…' }).click();
    await expect.poll(() => dialog.getByRole('heading').textContent()).toBe(`Deprecate ${name} 2.0.0?`);
    await dialog.getByLabel(/^Message/).fill('Use 1.0.0 until 2.0.1 fixes the upload');
    await expectAccessible(page, 'the deprecation dialog');
    await page.screenshot({
      path: join(import.meta.dirname, 'screenshots', 'mcp-server-deprecate-dialog.png'),
    });
    await dialog.getByRole('button', { name: 'Deprecate' }).click();
    await expect.poll(() => outcome.textContent()).toBe('Deprecated 2.0.0.');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect
      .poll(() => rowOf('2.0.0').textContent())
      .toContain('deprecated: Use 1.0.0 until 2.0.1 fixes the upload');
    expect(await official('2.0.0')).toMatchObject({
      status: 'deprecated',
      statusMessage: 'Use 1.0.0 until 2.0.1 fixes the upload',
    });
    await expect
      .poll(() => page.getByRole('region', { name: 'Install in VS Code' }).textContent())
      .toContain('This version is deprecated: Use 1.0.0 until 2.0.1 fixes the upload');

    // Back to active.
    await rowOf('2.0.0').getByRole('button', { name: 'Make 2.0.0 active…' }).click();
    await dialog.getByRole('button', { name: 'Make active' }).click();
    await expect.poll(() => outcome.textContent()).toBe('2.0.0 is active again.');
    expect(await official('2.0.0')).toMatchObject({ status: 'active' });
    expect((await official('2.0.0'))?.statusMessage).toBeUndefined();

    // Delete the latest: latest moves to 1.0.0, the catalog's list leaves it out; then restore it.
    await rowOf('2.0.0').getByRole('button', { name: 'Delete 2.0.0…' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => outcome.textContent()).toContain('Deleted 2.0.0');
    await expect.poll(() => rowOf('2.0.0').textContent()).toContain('deleted');
    await expect.poll(() => rowOf('1.0.0').textContent()).toContain('1.0.0 (latest)');
    expect(await official('2.0.0')).toMatchObject({ status: 'deleted', isLatest: false });
    const listed = await server.request('GET', `/mcp/${org.slug}/v0.1/servers?search=${enc(name)}`, {
      key: org.ownerKey,
    });
    expect(
      (listed.body as { servers: Array<{ server: { version: string } }> }).servers.map(
        (e) => e.server.version,
      ),
    ).toEqual(['1.0.0']);
    await screenshots(page, 'mcp-server-status');
    await rowOf('2.0.0').getByRole('button', { name: 'Restore 2.0.0…' }).click();
    await dialog.getByRole('button', { name: 'Make active' }).click();
    await expect.poll(() => outcome.textContent()).toBe('2.0.0 is active again.');
    await expect.poll(() => rowOf('2.0.0').textContent()).toContain('2.0.0 (latest)');

    // A change someone else made meanwhile: the refusal is said in the dialog, and the page catches up; the
    // install snippet, showing the version now deleted, goes back to the latest.
    const install = page.getByRole('region', { name: 'Install in VS Code' });
    await install.getByLabel('Version').selectOption('1.0.0');
    await expect.poll(() => install.textContent()).toContain('@example/tool@1.0.0');
    const elsewhere = await server.request(
      'PATCH',
      `/api/v1/mcp/servers/${enc(name)}/versions/1.0.0/status`,
      { key: org.ownerKey, body: { status: 'deleted' } },
    );
    expect(elsewhere.status, elsewhere.text).toBe(200);
    await rowOf('1.0.0').getByRole('button', { name: 'Delete 1.0.0…' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    const refusal = dialog.getByRole('alert');
    await expect.poll(() => refusal.textContent()).toContain('The status was not changed.');
    await expect.poll(() => refusal.textContent()).toContain('status is already deleted');
    await expect.poll(() => refusal.textContent()).toContain('Request id');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => rowOf('1.0.0').textContent()).toContain('deleted');
    await expect.poll(() => rowOf('1.0.0').getByRole('button', { name: 'Restore 1.0.0…' }).count()).toBe(1);
    await expect.poll(() => install.getByLabel('Version').inputValue()).toBe('2.0.0');
    await expect.poll(() => install.textContent()).toContain('@example/tool@2.0.0');

    // Dark, at a 390 px phone: the actions wrap inside their row's card.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({
      path: join(import.meta.dirname, 'screenshots', 'mcp-server-status-390-dark.png'),
      fullPage: true,
    });
    const overflow = await page.evaluate(() => {
      const root = (
        globalThis as unknown as {
          document: { documentElement: { scrollWidth: number; clientWidth: number } };
        }
      ).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible(page, "an MCP catalog server's page in dark, on a phone");
    expect(owner.problems).toEqual([]);
    await owner.close();

    // A member (mcp:read only) reads the page and its snippet, without a status button.
    const memberId = await addMember(server, org, 'member');
    await setPassword(server, memberId);
    const members = await server.request('GET', `/api/v1/organizations/${org.slug}/members?limit=100`, {
      key: org.ownerKey,
    });
    const memberEmail = (members.body as { data: Array<{ userId: string; email: string }> }).data.find(
      (candidate) => candidate.userId === memberId,
    )?.email;
    expect(memberEmail).toBeDefined();
    const member = await openConsole(browser);
    await signInAs(member.page, server.url, memberEmail ?? '', `/mcp-catalog/servers/${name}`);
    await expect.poll(() => pageHeading(member.page).textContent()).toBe(name);
    const memberVersions = member.page.getByRole('table', { name: `Versions of ${name}, newest first` });
    await expect.poll(() => memberVersions.getByRole('row').count()).toBe(3);
    expect(await memberVersions.getByRole('button').count()).toBe(0);
    expect(await memberVersions.getByRole('columnheader').allTextContents()).toEqual([
      'Version',
      'Status',
      'Published',
    ]);
    await expect
      .poll(() => member.page.getByRole('region', { name: 'Install in VS Code' }).textContent())
      .toContain('@example/tool@2.0.0');
    expect(member.problems).toEqual([]);
    await member.close();
  });
});
