import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScimClient } from '../scim/scim-client.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { type DnsServer, startDnsServer } from '../support/dns-server.js';
import { createOrganization, type TestOrganization, uniqueSlug } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, signInAs } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let dns: DnsServer;
let org: TestOrganization;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  dns = await startDnsServer();
  server = await startServer({ domains: { proof: { dnsServers: [dns.address] } } });
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
});
afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await dns?.close();
});

describe('domains and the SCIM token in the browser', () => {
  it('the owner claims a domain, publishes the TXT record shown, proves it, and makes a SCIM token once', async () => {
    const { page, problems, close } = await openConsole(browser);
    await signInAs(page, server.url, `owner@${org.slug}.test`, '/settings');
    await expect.poll(() => pageHeading(page).textContent()).toBe('Settings');
    const domain = `${uniqueSlug('page')}.test`;
    await page.getByLabel('Claim a domain').fill(domain);
    await page.getByRole('button', { name: 'Claim', exact: true }).click();
    const card = page.getByTestId(`domain-${domain}`);
    await expect.poll(() => card.textContent()).toContain('Waiting for proof');
    const name = await card.locator('dd code').nth(0).textContent();
    const value = await card.locator('dd code').nth(1).textContent();
    expect(name).toBe(`_cadre-challenge.${domain}`);
    dns.setTxt(name!, [value!]);
    await card.getByRole('button', { name: `Check now ${domain}` }).click();
    await expect.poll(() => card.textContent()).toContain('Verified');

    await page.getByRole('button', { name: 'Make a token' }).click();
    const shown = page.getByTestId('scim-token');
    await expect.poll(() => shown.count()).toBe(1);
    const token = (await shown.textContent())!;
    expect(token).toMatch(/^scim_/);
    // The token the page showed works, and a reload never shows it again.
    expect((await new ScimClient(`${server.url}/scim/v2`, token).listUsers()).status).toBe(200);
    await expectAccessible(page, 'the settings page with domains and SCIM');
    await page.reload();
    await expect.poll(() => page.getByRole('button', { name: 'Rotate the token' }).count()).toBe(1);
    expect(await page.content()).not.toContain(token);
    expect(problems).toEqual([]);
    await close();
  }, 120_000);
});
