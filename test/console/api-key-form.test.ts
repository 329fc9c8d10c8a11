import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_PERMISSIONS } from '../../src/modules/auth/permissions.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { openConsole, pageHeading, signInAs } from './console-page.js';

// The console's key form for each role: areas with levels, only what the role can grant, and "everything my
// role allows" giving exactly the role (docs/api-keys.md).
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
  for (const role of ['member', 'admin'] as const) {
    const added = await server.admin<{ data: { user: { id: string } } }>(
      'POST',
      `/admin/v1/organizations/${org.id}/members`,
      { email: `${role}@${org.slug}.test`, role },
    );
    await setPassword(server, added.body.data.user.id);
  }
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;

const signIn = (page: Page, email: string, next: string) => signInAs(page, server.url, email, next);

describe('the API key form, for every role', () => {
  it('grants "everything my role allows" to a member and an admin, and offers each only what its role can grant', async () => {
    const expected = {
      member: { experts: ['No access', 'Publish'], settings: 0, refused: 'billing:manage' },
      admin: {
        experts: ['No access', 'Publish', 'Publish and approve'],
        settings: 0,
        refused: 'experts:delete',
      },
      owner: {
        experts: ['No access', 'Publish', 'Publish and approve', 'Publish, approve and delete'],
        settings: 1,
        refused: undefined,
      },
    } as const;
    for (const [role, email] of [
      ['member', `member@${org.slug}.test`],
      ['admin', `admin@${org.slug}.test`],
      ['owner', `owner@${org.slug}.test`],
    ] as const) {
      const { page, problems, close } = await openConsole(browser);
      await signIn(page, email, '/keys');
      await expect.poll(() => heading(page).textContent()).toBe('API keys');
      await page.getByRole('button', { name: 'Create an API key' }).click();
      await expect.poll(() => page.getByLabel('Experts', { exact: true }).count()).toBe(1);
      expect(await page.locator('#area-experts option').allTextContents(), role).toEqual(
        expected[role].experts,
      );
      expect(await page.getByLabel('Organization settings').count(), role).toBe(expected[role].settings);
      await page.getByLabel(`Everything your role allows (${role}), now and later`).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      await expect.poll(() => page.getByTestId('new-secret').count()).toBe(1);
      const key = (await page.getByTestId('new-secret').textContent()) ?? '';
      const me = await http<{ data: { permissions: string[]; role: string } }>(
        server.url,
        'GET',
        '/api/v1/me',
        {
          key,
        },
      );
      expect(me.body.data.role).toBe(role);
      // Exactly the role: nothing more, nothing less.
      expect(new Set(me.body.data.permissions)).toEqual(new Set(ROLE_PERMISSIONS[role]));
      if (expected[role].refused) expect(me.body.data.permissions).not.toContain(expected[role].refused);
      expect(problems).toEqual([]);
      await close();
    }
  });
});
