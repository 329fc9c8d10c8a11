import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmServer, publish, serverName } from '../mcp/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots, signInAs } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
let adminKey: string;
let adminEmail: string;
let memberEmail: string;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  const adminId = await addMember(server, org, 'admin');
  adminKey = (await createKey(server, org, adminId)).key;
  const memberId = await addMember(server, org, 'member');
  await setPassword(server, memberId);
  const members = await server.request<{ data: { userId: string; email: string }[] }>(
    'GET',
    `/api/v1/organizations/${org.slug}/members?limit=100`,
    { key: org.ownerKey },
  );
  const emailOf = (id: string) => members.body.data.find((m) => m.userId === id)?.email ?? '';
  adminEmail = emailOf(adminId);
  memberEmail = emailOf(memberId);
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const publishAsAdmin = async (body: unknown) => {
  const res = await server.request('POST', '/api/v1/mcp/servers', { key: adminKey, body });
  expect(res.status, res.text).toBe(201);
};
/** The same npm server with one more remote: a new host it can reach, so the version widens access. */
const withRemote = (name: string, version: string) =>
  npmServer(name, version, {
    remotes: [{ type: 'streamable-http', url: 'https://files.example.net/mcp' }],
  });

describe('the MCP catalog page’s approvals', () => {
  it('lists the versions waiting with their reasons; the owner approves and rejects, a member only reads', {
    timeout: 240_000,
  }, async () => {
    const files = serverName('files');
    await publish(server, org, npmServer(files, '1.0.0')); // before the policy: it joins at once
    const policy = await server.request('PUT', '/api/v1/organization/publish-policy', {
      key: org.ownerKey,
      body: { approvalRequiredForWidening: true },
    });
    expect(policy.status, policy.text).toBe(200);
    await publishAsAdmin(withRemote(files, '1.1.0'));
    const ownVersion = serverName('notes');
    await publish(server, org, npmServer(ownVersion, '1.0.0'));
    const refused = serverName('shell');
    await publishAsAdmin(npmServer(refused, '0.1.0'));

    const owner = await openConsole(browser);
    const { page } = owner;
    await signInAs(page, server.url, `owner@${org.slug}.test`, '/mcp-catalog');
    await expect.poll(() => pageHeading(page).textContent()).toBe('MCP catalog');
    const waiting = page.getByRole('region', { name: 'Waiting for approval' });
    const item = (name: string) => waiting.getByRole('listitem').filter({ hasText: name }).first();
    await expect.poll(() => waiting.getByRole('heading', { level: 3 }).count()).toBe(3);
    await expect.poll(() => item(files).textContent()).toContain(`Published by ${adminEmail}`);
    await expect.poll(() => item(files).textContent()).toContain('over 1.0.0');
    await expect.poll(() => item(files).textContent()).toContain('files.example.net');
    await expect
      .poll(() =>
        item(files)
          .getByRole('link', { name: `${files} 1.1.0` })
          .getAttribute('href'),
      )
      .toBe(`/mcp-catalog/servers/${files}`);
    await expect.poll(() => item(refused).textContent()).toContain('new secret variable EXAMPLE_TOKEN');
    // The owner's own version: no decision, and who makes it instead.
    await expect.poll(() => item(ownVersion).textContent()).toContain('another owner or admin approves it');
    expect(await item(ownVersion).getByRole('button').count()).toBe(0);

    // Not yet in the catalog: 1.0.0 is still latest.
    const servers = page.getByRole('table', { name: 'Servers and their versions' });
    await expect.poll(() => servers.textContent()).toContain('1.0.0 (latest)');
    expect(await servers.textContent()).not.toContain('1.1.0');

    await expectAccessible(page, 'the MCP catalog page with versions waiting');
    await screenshots(page, 'mcp-catalog-approvals');

    await item(files).getByRole('button', { name: 'Approve' }).click();
    const outcome = waiting.getByRole('status').first();
    await expect.poll(() => outcome.textContent()).toBe(`Approved: ${files} 1.1.0 is now latest.`);
    await expect.poll(() => outcome.evaluate((node) => node === node.ownerDocument.activeElement)).toBe(true);
    await expect.poll(() => servers.textContent()).toContain('1.1.0 (latest)');
    await expect.poll(() => waiting.getByRole('heading', { level: 3 }).count()).toBe(2);

    // Rejecting asks first.
    await item(refused).getByRole('button', { name: 'Reject…' }).click();
    const dialog = page.getByRole('dialog', { name: `Reject ${refused} 0.1.0?` });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await expectAccessible(page, 'the rejection dialog');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => outcome.textContent())
      .toBe(`Rejected: ${refused} 0.1.0 never joins the catalog.`);
    await expect.poll(() => outcome.evaluate((node) => node === node.ownerDocument.activeElement)).toBe(true);
    await expect.poll(() => waiting.getByRole('heading', { level: 3 }).count()).toBe(1);
    expect(await servers.textContent()).not.toContain(refused);
    await expectAccessible(page, 'the MCP catalog page after the decisions');
    expect(owner.problems).toEqual([]);
    await owner.close();

    // A member reads what waits, with no decision to take.
    const member = await openConsole(browser);
    await signInAs(member.page, server.url, memberEmail, '/mcp-catalog');
    const memberWaiting = member.page.getByRole('region', { name: 'Waiting for approval' });
    await expect.poll(() => memberWaiting.textContent()).toContain('Owners and admins approve or reject it.');
    await expect.poll(() => memberWaiting.textContent()).toContain(`${ownVersion} 1.0.0`);
    expect(await memberWaiting.getByRole('button').count()).toBe(0);
    await expectAccessible(member.page, 'the MCP catalog page for a member');
    expect(member.problems).toEqual([]);
    await member.close();
  });
});
