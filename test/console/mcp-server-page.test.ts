import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmServer, publish, serverName } from '../mcp/helpers.js';
import { baseSkill, expertBody, publish as publishExpert, uniqueName } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots, signInAs } from './console-page.js';

// The links between the MCP catalog and the Experts in the console (docs/mcp-registry.md "Who uses a
// server"): an Expert's skill links to its catalog server's page, which lists the Experts that use it.

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
});
