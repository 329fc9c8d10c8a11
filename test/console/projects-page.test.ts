import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type OAuthWorld, startOAuthWorld } from '../oauth/harness.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

let world: OAuthWorld;
let chromium: TestBrowser | undefined;
let browser: Browser;
let memberEmail: string;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  world = await startOAuthWorld();
  await setPassword(world.server, world.org.ownerId);
  memberEmail = `member@${world.org.slug}.test`;
  const member = await world.server.admin<{ data: { user: { id: string } } }>(
    'POST',
    `/admin/v1/organizations/${world.org.id}/members`,
    { email: memberEmail, role: 'member' },
  );
  await setPassword(world.server, member.body.data.user.id);
});
afterAll(async () => {
  await chromium?.close();
  await world?.close();
});

const heading = pageHeading;

async function signIn(page: Page, email: string) {
  await page.goto(`${world.server.url}/sign-in?next=/projects`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => heading(page).textContent()).toBe('Projects');
}

interface ProjectList {
  data: Array<{ id: string; slug: string; name: string; environments: Array<{ id: string; name: string }> }>;
}
const projects = async () =>
  (await world.server.request<ProjectList>('GET', '/api/v1/projects', { key: world.org.ownerKey })).body.data;

describe('projects in the browser', () => {
  it('creates, renames and deletes a project, its environments and agents', { timeout: 90_000 }, async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, `owner@${world.org.slug}.test`);

    // Forms stay closed until asked for: the page opens on its list, one button to create.
    await page.getByRole('button', { name: 'Create a project' }).click();
    const create = page.getByRole('form', { name: 'Create a project' });
    // The form opens with its first field focused.
    await expect
      .poll(() =>
        create.getByLabel('Project name').evaluate((node) => node === node.ownerDocument.activeElement),
      )
      .toBe(true);
    await create.getByLabel('Project name').fill('Shop');
    await create.getByLabel(/^Slug/).fill('shop');
    await create.getByRole('button', { name: 'Create project' }).click();
    const shop = () => page.getByRole('region', { name: /Shop$/ });
    await expect.poll(() => shop().getByText('production').count()).toBe(1);
    expect(await shop().getByText('development').count()).toBe(1);
    // Created: the form closes, and no project's form is open until asked for.
    await expect.poll(() => page.locator('main form').count()).toBe(0);

    await shop().getByRole('button', { name: 'Rename Shop' }).click();
    await shop().getByLabel('Project name').fill('Web shop');
    await shop().getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Web shop' }).count()).toBe(1);
    const webShop = page.getByRole('region', { name: 'Web shop' });

    await webShop.getByRole('button', { name: 'Add an environment' }).click();
    await webShop.getByLabel('New environment').fill('staging');
    await webShop.getByRole('button', { name: 'Add' }).first().click();
    await expect.poll(() => webShop.getByText('staging', { exact: true }).count()).toBe(1);
    await webShop.getByRole('button', { name: 'Rename staging' }).click();
    await webShop.getByLabel('Environment name').fill('preview');
    await webShop.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => webShop.getByText('preview', { exact: true }).count()).toBe(1);

    await webShop.getByRole('button', { name: 'Add an agent' }).click();
    await webShop.getByLabel('New agent').fill('triage');
    await webShop.getByRole('button', { name: 'Add' }).last().click();
    await expect.poll(() => webShop.getByText('triage', { exact: true }).count()).toBe(1);
    await screenshots(page, 'projects');
    await expectAccessible(page, 'projects');

    const stored = (await projects()).find((p) => p.slug === 'shop');
    expect(stored?.name).toBe('Web shop');
    expect(stored?.environments.map((e) => e.name).sort()).toEqual(['development', 'preview', 'production']);

    // An environment with nothing in it goes after one confirmation.
    await webShop.getByRole('button', { name: 'Delete environment preview' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => webShop.getByText('preview', { exact: true }).count()).toBe(0);
    await webShop.getByRole('button', { name: 'Delete agent triage' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => webShop.getByText('No agents yet.').count()).toBe(1);

    await webShop.getByRole('button', { name: 'Delete project…' }).click();
    expect(await page.getByRole('dialog').textContent()).toContain(
      'environments and agents are deleted with it',
    );
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Web shop' }).count()).toBe(0);
    expect((await projects()).some((p) => p.slug === 'shop')).toBe(false);
    expect(problems).toEqual([]);
    await close();
  });

  it('shows what protects an environment with a connection, then deletes it with the confirmed cascade', async () => {
    const made = await connect(world, world.org.ownerKey);
    expect(made.params.oauth_status).toBe('success');
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, `owner@${world.org.slug}.test`);
    const slug = (await projects()).find((p) => p.id === world.projectId)?.slug ?? '';
    const project = page.getByRole('region', { name: slug });
    await project.getByRole('button', { name: 'Delete environment production' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').count()).toBe(1);
    const words = await dialog.textContent();
    expect(words).toContain('production is still in use by 1 connection');
    expect(words).toContain('alice');
    expect(words).toContain('disconnects those accounts');
    await screenshots(page, 'projects-delete-blocked');
    await expectAccessible(page, 'projects, delete blocked');
    // Nothing was deleted by the refused attempt.
    const before = (await projects()).find((p) => p.id === world.projectId);
    expect(before?.environments.some((e) => e.id === world.environmentId)).toBe(true);

    await dialog.getByRole('button', { name: 'Disconnect and delete' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await expect
      .poll(() => project.getByRole('button', { name: 'Delete environment production' }).count())
      .toBe(0);
    const after = (await projects()).find((p) => p.id === world.projectId);
    expect(after?.environments.map((e) => e.name)).toEqual(['development']);
    const gone = await world.server.request(
      'GET',
      `/api/v1/projects/${world.projectId}/environments/${world.environmentId}/connections`,
      { key: world.org.ownerKey },
    );
    expect(gone.status).toBe(404);
    expect(problems).toEqual([]);
    await close();
  });

  it('shows a member the projects without any control to change them', async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, memberEmail);
    await expect.poll(() => page.locator('.project').count()).toBeGreaterThan(0);
    expect(await page.getByText('owners and admins change them').count()).toBe(1);
    expect(await page.getByRole('button', { name: /Rename|Delete|Add|Create/ }).count()).toBe(0);
    await screenshots(page, 'projects-member');
    await expectAccessible(page, 'projects as a member');
    expect(problems).toEqual([]);
    await close();
  });
});
