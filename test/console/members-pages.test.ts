import { eq } from 'drizzle-orm';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitations } from '../../src/modules/members/invitations.tables.js';
import { expertBody, published } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
let ownerEmail: string;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  org = await createOrganization(server, 'team');
  ownerEmail = `owner@${org.slug}.test`;
  await setPassword(server, org.ownerId);
});

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;
/** The buttons that change something: every one but a member id's copy button. */
const changes = (scope: Locator) => scope.getByRole('button').filter({ hasNotText: 'Copy id' });

async function signIn(page: Page, email: string, next: string, password = PASSWORD) {
  await page.goto(`${server.url}/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Invites through the owner's page and returns the link's token, read from the page (shown once). */
async function invite(page: Page, email: string, role: 'member' | 'admin' = 'member'): Promise<string> {
  await page.getByRole('button', { name: 'Invite someone' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Role').selectOption(role);
  await page.getByRole('button', { name: 'Send invitation' }).click();
  const link = page.getByTestId('invitation-link');
  await expect.poll(() => link.count()).toBe(1);
  const url = (await link.textContent()) ?? '';
  const token = url.split('/invitations/')[1] ?? '';
  expect(token).toMatch(/^inv_/);
  return token;
}

const memberUserId = async (email: string) => {
  const list = await http<{ data: Array<{ userId: string; email: string | null; role: string }> }>(
    server.url,
    'GET',
    `/api/v1/organizations/${org.id}/members?limit=100`,
    { key: org.ownerKey },
  );
  return list.body.data.find((member) => member.email === email);
};

describe('members, invitations and settings in the browser', () => {
  // A long story through two browsers (16 s alone): the default 30 s is too tight when the suite's other
  // browser tests share the machine.
  it('owner invites, the invitee joins through the link, sees only member things, is promoted, then removed', {
    timeout: 90_000,
  }, async () => {
    const owner = await openConsole(browser);
    await signIn(owner.page, ownerEmail, '/members');
    await expect.poll(() => heading(owner.page).textContent()).toBe('Members');
    await expect.poll(() => owner.page.getByRole('row', { name: /owner@/ }).count()).toBe(1);
    // The owner's own row offers nothing that would remove or demote the owner.
    const ownerRow = owner.page.getByRole('row', { name: /owner@/ });
    expect(await changes(ownerRow).count()).toBe(0);
    expect(await ownerRow.textContent()).toContain('transfer the ownership');

    const email = `ada@${org.slug}.test`;
    await owner.page.getByRole('button', { name: 'Invite someone' }).click();
    await owner.page.getByLabel('Email').fill(email);
    await screenshots(owner.page, 'members-invite-form');
    await expectAccessible(owner.page, 'the invite form');
    await owner.page.getByRole('button', { name: 'Send invitation' }).click();
    const link = owner.page.getByTestId('invitation-link');
    await expect.poll(() => link.count()).toBe(1);
    const token = ((await link.textContent()) ?? '').split('/invitations/')[1] ?? '';
    expect(token).toMatch(/^inv_/);
    // No SMTP server is configured: the page says the link was not emailed.
    expect(await owner.page.getByRole('status').filter({ hasText: 'did not email' }).count()).toBe(1);
    await screenshots(owner.page, 'members-invitation-link');
    await owner.page.getByRole('button', { name: 'Done' }).click();
    expect(await owner.page.getByTestId('invitation-link').count()).toBe(0);
    const pendingRow = owner.page.getByRole('row', { name: new RegExp(email) });
    await expect.poll(() => pendingRow.count()).toBe(1);
    await screenshots(owner.page, 'members-owner');
    await expectAccessible(owner.page, 'the members page (owner)');

    // The invitee, in another browser, with no account yet.
    const invitee = await openConsole(browser);
    // A console page of its own (200), not the shell of an unknown path (404).
    expect((await invitee.page.goto(`${server.url}/invitations/${token}`))?.status()).toBe(200);
    await expect.poll(() => heading(invitee.page).textContent()).toBe(`Join ${org.slug}`);
    expect(await invitee.page.locator('main').textContent()).toContain(email);
    await invitee.page.getByLabel('Your name').fill('Ada Lovelace');
    await invitee.page.getByLabel('Password').fill('analytical engine 1843');
    await screenshots(invitee.page, 'invitation');
    await expectAccessible(invitee.page, 'the invitation page');
    await invitee.page.getByRole('button', { name: 'Create account and join' }).click();
    await expect.poll(() => new URL(invitee.page.url()).pathname).toBe('/home');
    await expect.poll(() => heading(invitee.page).textContent()).toBe(org.slug);
    const joined = await memberUserId(email);
    expect(joined?.role).toBe('member');
    const memberKey = await createKey(server, org, joined!.userId);
    expect((await http(server.url, 'GET', '/api/v1/me', { key: memberKey.key })).status).toBe(200);

    // The member sees the list, and no control a member cannot use.
    await invitee.page.getByRole('link', { name: 'Members' }).first().click();
    await expect.poll(() => heading(invitee.page).textContent()).toBe('Members');
    await expect.poll(() => invitee.page.getByRole('row', { name: /Ada Lovelace/ }).count()).toBe(1);
    const main = invitee.page.locator('main');
    expect(await main.getByRole('button', { name: 'Invite someone' }).count()).toBe(0);
    expect(await changes(main).count()).toBe(0);
    expect(await main.getByText('Pending invitations').count()).toBe(0);
    // Other members' emails are not shown to a member; their own is.
    expect(await main.textContent()).not.toContain(ownerEmail);
    expect(await main.textContent()).toContain(email);
    await screenshots(invitee.page, 'members-member');
    await expectAccessible(invitee.page, 'the members page (member)');
    // Billing: plans and usage, but no Upgrade or Manage billing.
    await invitee.page.goto(`${server.url}/billing`);
    await expect.poll(() => invitee.page.getByRole('heading', { name: 'Plans' }).count()).toBe(1);
    await expect.poll(() => invitee.page.locator('.plan').count()).toBeGreaterThan(1);
    expect(await invitee.page.getByRole('button', { name: /Upgrade/ }).count()).toBe(0);
    expect(await invitee.page.getByRole('button', { name: 'Manage billing' }).count()).toBe(0);
    // Settings: their own name and password, not the organization's name.
    expect((await invitee.page.goto(`${server.url}/settings`))?.status()).toBe(200);
    await expect
      .poll(() => invitee.page.getByLabel('Name', { exact: true }).inputValue())
      .toBe('Ada Lovelace');
    expect(await invitee.page.getByLabel('Organization name').count()).toBe(0);
    // An Expert of the organization: a member may deprecate or disable it, but not delete it (the owner's).
    const expert = `@${org.slug}/memo-writer`;
    await published(server, org.ownerKey, expertBody(expert, '1.0.0'));
    await invitee.page.goto(`${server.url}/experts/${expert}`);
    await expect.poll(() => invitee.page.getByText('Manage this version').count()).toBe(1);
    await expect.poll(() => invitee.page.getByRole('button', { name: 'Disable…' }).count()).toBe(1);
    expect(await invitee.page.getByRole('button', { name: 'Delete…' }).count()).toBe(0);
    // The owner's pages still offer them (same build, other role): the absences above are the role's.
    await owner.page.goto(`${server.url}/experts/${expert}`);
    await expect.poll(() => owner.page.getByRole('button', { name: 'Delete…' }).count()).toBe(1);
    await owner.page.goto(`${server.url}/billing`);
    await expect.poll(() => owner.page.getByRole('button', { name: /Upgrade/ }).count()).toBeGreaterThan(0);

    // The owner makes Ada an admin; her key follows at once.
    expect((await owner.page.goto(`${server.url}/members`))?.status()).toBe(200);
    const adaRow = owner.page.getByRole('row', { name: /Ada Lovelace/ });
    await expect.poll(() => adaRow.count()).toBe(1);
    await adaRow.getByRole('button', { name: 'Make admin' }).click();
    await expect
      .poll(() => owner.page.getByRole('status').first().textContent())
      .toContain('is now an admin');
    await expect.poll(() => adaRow.textContent()).toContain('Admin');
    const me = await http<{ data: { role: string } }>(server.url, 'GET', '/api/v1/me', {
      key: memberKey.key,
    });
    expect(me.body.data.role).toBe('admin');

    // An admin manages members but never sees a control on the owner's row, nor a transfer.
    await invitee.page.goto(`${server.url}/members`);
    await expect
      .poll(() => invitee.page.getByRole('button', { name: 'Invite someone' }).count(), { timeout: 10_000 })
      .toBe(1);
    const ownerRowAsAdmin = invitee.page.getByRole('row', { name: /owner@/ });
    expect(await changes(ownerRowAsAdmin).count()).toBe(0);
    expect(await invitee.page.getByRole('button', { name: /Transfer ownership/ }).count()).toBe(0);
    expect(await invitee.page.getByRole('option', { name: /Owner/ }).count()).toBe(0);

    // The owner removes her: her key is refused at once, and her console session is gone.
    await adaRow.getByRole('button', { name: 'Remove…' }).click();
    await screenshots(owner.page, 'members-remove-dialog');
    await owner.page.getByRole('button', { name: 'Remove the member' }).click();
    await expect.poll(() => adaRow.count()).toBe(0);
    expect(await owner.page.getByRole('status').first().textContent()).toContain('API keys are revoked');
    expect((await http(server.url, 'GET', '/api/v1/me', { key: memberKey.key })).status).toBe(401);
    await invitee.page.goto(`${server.url}/members`);
    await expect.poll(() => heading(invitee.page).textContent()).toBe('Sign in');

    // The used link now says so.
    await invitee.page.goto(`${server.url}/invitations/${token}`);
    await expect.poll(() => invitee.page.locator('main').textContent()).toContain('Sign in');
    expect(owner.problems).toEqual([]);
    expect(invitee.problems).toEqual([]);
    await owner.close();
    await invitee.close();
  });

  it('a revoked or expired link says so in words, with what to do next', async () => {
    const owner = await openConsole(browser);
    await signIn(owner.page, ownerEmail, '/members');
    await expect.poll(() => heading(owner.page).textContent()).toBe('Members');
    const revoked = await invite(owner.page, `bob@${org.slug}.test`);
    await owner.page.getByRole('button', { name: 'Done' }).click();
    const expired = await invite(owner.page, `eve@${org.slug}.test`, 'admin');
    await owner.page.getByRole('button', { name: 'Done' }).click();
    const bobRow = owner.page.getByRole('row', { name: /bob@/ });
    await bobRow.getByRole('button', { name: 'Revoke…' }).click();
    await owner.page.getByRole('button', { name: 'Revoke the invitation' }).click();
    await expect.poll(() => bobRow.count()).toBe(0);
    await server.context.database.db
      .update(invitations)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(invitations.email, `eve@${org.slug}.test`));

    const visitor = await openConsole(browser);
    await visitor.page.goto(`${server.url}/invitations/${revoked}`);
    await expect.poll(() => visitor.page.locator('main').textContent()).toContain('revoked');
    expect(await visitor.page.locator('main').textContent()).toContain('Ask them for a new one.');
    expect(await visitor.page.locator('form').count()).toBe(0);
    await screenshots(visitor.page, 'invitation-revoked');
    await expectAccessible(visitor.page, 'a revoked invitation');

    await visitor.page.goto(`${server.url}/invitations/${expired}`);
    await expect.poll(() => visitor.page.locator('main').textContent()).toContain('expired');
    expect(await visitor.page.locator('main').textContent()).toContain('Ask the organization for a new one.');
    await screenshots(visitor.page, 'invitation-expired');

    await visitor.page.goto(`${server.url}/invitations/inv_${'x'.repeat(43)}`);
    await expect.poll(() => visitor.page.locator('main').textContent()).toContain('not valid');
    expect(visitor.problems).toEqual([]);
    await visitor.close();
    await owner.close();
  });

  it('the owner copies a pending invitation’s link again: a new copy, the one shown before stops working', async () => {
    const owner = await openConsole(browser);
    await signIn(owner.page, ownerEmail, '/members');
    await expect.poll(() => heading(owner.page).textContent()).toBe('Members');
    const email = `grace@${org.slug}.test`;
    const first = await invite(owner.page, email);
    await owner.page.getByRole('button', { name: 'Done' }).click();
    const row = owner.page.getByRole('row', { name: new RegExp(email) });
    await row.getByRole('button', { name: 'Copy link again…' }).click();
    const dialog = owner.page.getByRole('dialog');
    await expect
      .poll(() => dialog.textContent())
      .toContain('The copy of the link you were shown before stops working');
    await expectAccessible(owner.page, 'the copy-link confirmation');
    await dialog.getByRole('button', { name: 'Show a new copy' }).click();

    const copy = owner.page.getByTestId('invitation-link-copy');
    await expect.poll(() => copy.count()).toBe(1);
    const second = ((await copy.textContent()) ?? '').split('/invitations/')[1] ?? '';
    expect(second).toMatch(/^inv_/);
    expect(second).not.toBe(first);
    // The new copy's heading takes the focus, so a keyboard or screen-reader user lands on it.
    await expect
      .poll(() =>
        owner.page.evaluate(
          () =>
            (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement
              .id,
        ),
      )
      .toBe('invitation-link-copy');
    expect(await owner.page.getByRole('heading', { name: `New link for ${email}` }).count()).toBe(1);
    await screenshots(owner.page, 'members-invitation-link-again');
    await expectAccessible(owner.page, 'the new copy of an invitation link');
    expect((await server.request('GET', `/auth/invitations/${first}`)).status).toBe(404);
    expect((await server.request('GET', `/auth/invitations/${second}`)).status).toBe(200);

    await owner.page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => copy.count()).toBe(0);
    expect(owner.problems).toEqual([]);
    await owner.close();
  });

  it('someone who already has an account joins with their password and lands in the new organization', async () => {
    const elsewhere = await createOrganization(server, 'personal');
    await setPassword(server, elsewhere.ownerId);
    const email = `owner@${elsewhere.slug}.test`;
    const owner = await openConsole(browser);
    await signIn(owner.page, ownerEmail, '/members');
    await expect.poll(() => heading(owner.page).textContent()).toBe('Members');
    const token = await invite(owner.page, email);

    const invitee = await openConsole(browser);
    await invitee.page.goto(`${server.url}/invitations/${token}`);
    await expect.poll(() => heading(invitee.page).textContent()).toBe(`Join ${org.slug}`);
    expect(await invitee.page.getByLabel('Your name').count()).toBe(0);
    await invitee.page.getByLabel('Password').fill('not their password');
    await invitee.page.getByRole('button', { name: 'Sign in and join' }).click();
    await expect
      .poll(() => invitee.page.getByRole('alert').textContent())
      .toBe(`That is not the password of ${email}. Try again.`);
    await screenshots(invitee.page, 'invitation-existing-account');
    await expectAccessible(invitee.page, 'the invitation page for an existing account');
    await invitee.page.getByLabel('Password').fill(PASSWORD);
    await invitee.page.getByRole('button', { name: 'Sign in and join' }).click();
    await expect.poll(() => new URL(invitee.page.url()).pathname).toBe('/home');
    // Signed in to the organization just joined, not their own.
    await expect.poll(() => heading(invitee.page).textContent()).toBe(org.slug);
    expect((await memberUserId(email))?.role).toBe('member');
    expect(invitee.problems).toEqual([]);
    await invitee.close();
    await owner.close();
  });

  it('settings: the owner renames self and the organization; a new password ends the other session', async () => {
    const here = await openConsole(browser);
    const elsewhere = await openConsole(browser);
    await signIn(elsewhere.page, ownerEmail, '/keys');
    await expect.poll(() => heading(elsewhere.page).textContent()).toBe('API keys');
    await signIn(here.page, ownerEmail, '/settings');
    await expect.poll(() => heading(here.page).textContent()).toBe('Settings');

    await here.page.getByLabel('Name', { exact: true }).fill('Grace Hopper');
    await here.page.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => here.page.getByText('Name saved.').count()).toBe(1);
    await here.page.getByLabel('Organization name').fill('Hopper & Co');
    await here.page.getByRole('button', { name: 'Rename organization' }).click();
    await expect.poll(() => here.page.getByText('Organization renamed.').count()).toBe(1);
    await expect.poll(() => here.page.locator('.header-organization').textContent()).toContain('Hopper & Co');

    // A wrong current password is said in words; nothing changes.
    await here.page.getByLabel('Current password').fill('not the password');
    await here.page.getByLabel('New password', { exact: true }).fill('a brand new passphrase');
    await here.page.getByLabel('New password again').fill('a brand new passphrase');
    await here.page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => here.page.getByText('The current password is wrong.').count()).toBe(1);
    await screenshots(here.page, 'settings-wrong-password');
    await expectAccessible(here.page, 'settings with an error');

    await here.page.getByLabel('Current password').fill(PASSWORD);
    await here.page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => here.page.getByText(/Your other sessions were signed out/).count()).toBe(1);
    await screenshots(here.page, 'settings');
    await expectAccessible(here.page, 'settings');

    // The other browser is sent to sign-in; this one stays signed in.
    await elsewhere.page.goto(`${server.url}/keys`);
    await expect.poll(() => heading(elsewhere.page).textContent()).toBe('Sign in');
    await here.page.goto(`${server.url}/settings`);
    await expect.poll(() => heading(here.page).textContent()).toBe('Settings');
    // The new password signs in; the old one no longer does.
    await signIn(elsewhere.page, ownerEmail, '/home', 'a brand new passphrase');
    await expect.poll(() => new URL(elsewhere.page.url()).pathname).toBe('/home');
    expect(here.problems).toEqual([]);
    await here.close();
    await elsewhere.close();
  });
});
