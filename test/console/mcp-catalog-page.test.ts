import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, npmServer, publish, serverName } from '../mcp/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots, signInAs } from './console-page.js';

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

describe('the MCP catalog page', () => {
  it('lists servers and versions with their status, searches, and lets the owner set the access and rotate the link', {
    timeout: 180_000,
  }, async () => {
    const name = serverName('files');
    await publish(server, org, npmServer(name, '1.0.0'));
    await publish(server, org, npmServer(name, '1.1.0'));
    const deprecated = await server.request(
      'PATCH',
      `/api/v1/mcp/servers/${enc(name)}/versions/1.0.0/status`,
      {
        key: org.ownerKey,
        body: { status: 'deprecated', statusMessage: 'Use 1.1.0' },
      },
    );
    expect(deprecated.status, deprecated.text).toBe(200);
    const other = serverName('search');
    await publish(server, org, npmServer(other, '2.0.0'));

    const owner = await openConsole(browser);
    const { page } = owner;
    await signInAs(page, server.url, `owner@${org.slug}.test`, '/mcp-catalog');
    await expect.poll(() => pageHeading(page).textContent()).toBe('MCP catalog');
    await expect
      .poll(() => page.getByRole('navigation').getByRole('link', { name: 'MCP catalog' }).count())
      .toBe(1);

    const servers = page.getByRole('table', { name: 'Servers and their versions' });
    await expect.poll(() => servers.getByRole('row').count()).toBe(4); // a header and three versions
    const rowOf = (version: string) => servers.getByRole('row').filter({ hasText: version });
    await expect.poll(() => rowOf('1.0.0').textContent()).toContain('deprecated: Use 1.1.0');
    await expect.poll(() => rowOf('1.1.0 (latest)').count()).toBe(1);
    await expect.poll(() => rowOf('1.1.0 (latest)').textContent()).toContain('active');

    await expectAccessible(page, 'the MCP catalog page');
    await screenshots(page, 'mcp-catalog');
    await page.getByLabel('Search by name').fill(other.split('/')[0]!);
    await expect.poll(() => servers.getByRole('row').count()).toBe(2);
    await expect.poll(() => servers.textContent()).toContain(other);

    const access = page.getByRole('region', { name: 'Address and access' });
    await expect.poll(() => access.textContent()).toContain(`${server.url}/mcp/${org.slug}`);
    await expect.poll(() => access.textContent()).toContain('read with a Bearer key that has mcp:read');

    // The owner makes it reachable through a link, and gets the link once.
    await access.getByLabel(/Private behind a catalog link/).check();
    await access.getByRole('button', { name: 'Save access' }).click();
    await expect.poll(() => access.getByRole('status').first().textContent()).toBe('Access saved.');
    await access.getByRole('button', { name: 'Create a catalog link' }).click();
    const shown = access.getByText(/The new catalog link, shown once/);
    await expect.poll(() => shown.count()).toBe(1);
    const link = /(http:\/\/\S+\/mcp\/-\/[A-Za-z0-9]{43})/.exec((await shown.textContent()) ?? '')?.[1];
    expect(link).toBeDefined();
    const viaLink = await fetch(`${link}/v0.1/servers?version=latest`);
    expect(viaLink.status).toBe(200);
    expect(((await viaLink.json()) as { servers: unknown[] }).servers).toHaveLength(2);
    await expect.poll(() => access.getByRole('button', { name: 'Rotate the catalog link' }).count()).toBe(1);
    await expectAccessible(page, 'the MCP catalog page with a new link');
    expect(owner.problems).toEqual([]);
    await owner.close();
  });
});
