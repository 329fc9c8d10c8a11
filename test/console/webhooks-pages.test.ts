import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/lib/clock.js';
import { generateKeyEntry, parseKeyRing } from '../../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../../src/lib/outbound/address-policy.js';
import { expertBody, published } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { addMember, createKey, createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { type Receiver, startReceiver, status } from '../support/webhook-receiver.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
let memberEmail: string;
let receiver: Receiver;
// Retries are driven by this clock (moved by the test, never slept through).
const clock = createManualClock(new Date());
const PHONE = { width: 360, height: 740 };
// A description a careless page would run as HTML: it must read as text.
const DESCRIPTION = 'Deploys <img src=x onerror=alert(1)>';

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  receiver = await startReceiver();
  server = await startServer({
    keyRing: parseKeyRing(generateKeyEntry('k1')),
    clock,
    // The receiver listens on loopback: allowed here as an operator allows it for local development.
    webhooks: {
      allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance,
      worker: { pollIntervalMs: 50 },
    },
  });
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  const memberId = await addMember(server, org, 'member');
  const members = await server.request<{ data: Array<{ userId: string; email: string }> }>(
    'GET',
    `/api/v1/organizations/${org.id}/members`,
    { key: org.ownerKey },
  );
  memberEmail = members.body.data.find((m) => m.userId === memberId)!.email;
  await setPassword(server, memberId);
});
afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await receiver?.close();
});

const heading = pageHeading;

async function waitFor<T>(read: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function signIn(page: Page, next: string, email = `owner@${org.slug}.test`) {
  await page.goto(`${server.url}/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

interface Endpoint {
  id: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
}
const endpoints = async () =>
  (await server.request<{ data: Endpoint[] }>('GET', '/api/v1/webhook-endpoints', { key: org.ownerKey })).body
    .data;

describe('webhooks in the browser', () => {
  it('explains webhooks, adds an endpoint with grouped event types, shows its secret once, rotates, disables and deletes it', {
    timeout: 150_000,
  }, async () => {
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, '/developers');
    // The Developers group holds webhooks and events; /developers opens the webhooks.
    await expect.poll(() => heading(page).textContent()).toBe('Webhooks');
    expect(new URL(page.url()).pathname).toBe('/developers/webhooks');
    const main = page.getByRole('navigation', { name: 'Main' });
    expect(await main.getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current')).toBe('page');
    expect(await main.getByRole('link', { name: 'Events' }).count()).toBe(1);
    await expect
      .poll(() => page.locator('.webhooks-intro').textContent())
      .toContain('A webhook endpoint is a URL');
    await screenshots(page, 'webhooks-empty');
    await expectAccessible(page, 'webhooks, none yet');

    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    const form = page.getByRole('form', { name: 'Add an endpoint' });
    const add = form.getByRole('button', { name: 'Add endpoint' });
    expect(await add.isDisabled()).toBe(true);
    // Plain http to a host the operator did not allow: refused, in words, with the field named.
    await form.getByLabel('Endpoint URL').fill('http://ci.example.com/cadre-events');
    await form.getByLabel(/^Member joined/).check();
    await add.click();
    const refusal = form.getByRole('alert');
    await expect.poll(() => refusal.textContent()).toContain('must be an https URL');
    expect(await refusal.textContent()).toContain('Some values are not valid.');
    await form.getByLabel(/^Member joined/).uncheck();
    await form.getByLabel('Endpoint URL').fill('https://ci.example.com/cadre-events');
    await form.getByLabel('Description (optional)').fill(DESCRIPTION);
    // Grouped by resource: ticking a group ticks its types; one more from another group.
    const groups = await form.locator('fieldset fieldset legend').allTextContents();
    expect(groups.slice(0, 5)).toEqual(['Experts', 'API keys', 'Connections', 'Members', 'Billing']);
    await form.getByLabel('All Expert events').check();
    await form.getByLabel(/^Member joined/).check();
    expect(await form.getByLabel(/^Expert version published/).isChecked()).toBe(true);
    await form.getByLabel(/^Expert tags changed/).uncheck();
    expect(
      await form
        .getByLabel('All Expert events')
        .evaluate((input) => (input as unknown as { indeterminate: boolean }).indeterminate),
    ).toBe(true);
    await screenshots(page, 'webhooks-add-form');
    await expectAccessible(page, 'the add-endpoint form');
    await add.click();

    const secret = page.getByTestId('endpoint-secret');
    await expect.poll(() => secret.count()).toBe(1);
    const first = (await secret.textContent())!;
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(() => new Webhook(first)).not.toThrow();
    expect(await page.getByRole('alert').first().textContent()).toContain('only time Cadre shows it');
    expect(await page.getByRole('button', { name: /^Copy secret/ }).count()).toBe(1);
    await screenshots(page, 'webhook-secret');
    await expectAccessible(page, 'the new secret');
    const [created] = await endpoints();
    expect(created).toMatchObject({ description: DESCRIPTION, enabled: true });
    expect([...created!.eventTypes].sort()).toEqual(
      [
        'expert.published',
        'expert.status_changed',
        'expert.deleted',
        'expert.taken_down',
        'expert.awaiting_approval',
        'expert.approved',
        'expert.rejected',
        'member.joined',
      ].sort(),
    );
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => secret.count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toContain(first);

    // The list: the description as text (no image made of it), status, the event types in words.
    const card = page.locator('.endpoint').first();
    expect(await card.getByRole('heading', { level: 2 }).textContent()).toContain(DESCRIPTION);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await card.textContent()).toContain('Enabled');
    expect(await card.textContent()).toContain('8 event types: Expert version published');
    await screenshots(page, 'webhooks-list');
    await expectAccessible(page, 'the endpoint list');

    // Rotating asks first and says what the overlap is for; the new secret is shown once.
    await card.getByRole('button', { name: 'Rotate secret…' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('For the next 24 hours each delivery is signed with both');
    await screenshots(page, 'webhook-rotate-dialog');
    await dialog.getByRole('button', { name: 'Rotate the secret' }).click();
    await expect.poll(() => secret.count()).toBe(1);
    const second = (await secret.textContent())!;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(await page.locator('.secret').textContent()).toContain('signed with both the previous secret');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => card.textContent()).toContain('the previous secret also signs until');

    // Disable and enable again.
    await card.getByRole('button', { name: /^Disable/ }).click();
    await expect.poll(() => card.locator('.badge').textContent()).toBe('Disabled');
    expect((await endpoints())[0]!.enabled).toBe(false);
    await card.getByRole('button', { name: /^Enable/ }).click();
    await expect.poll(() => card.locator('.badge').textContent()).toBe('Enabled');

    // Edit: the form starts with the endpoint's values.
    await card.getByRole('button', { name: 'Edit' }).click();
    const edit = page.locator('form.endpoint-form');
    expect(await edit.getByLabel('Endpoint URL').inputValue()).toBe('https://ci.example.com/cadre-events');
    await edit.getByLabel('Description (optional)').fill('CI deploys');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect
      .poll(() => page.locator('.endpoint .endpoint-title').first().textContent())
      .toContain('CI deploys');

    // The endpoint's own page: its settings and (so far empty) delivery log.
    const id = created!.id;
    await page.locator('.endpoint .endpoint-title a').first().click();
    await expect.poll(() => heading(page).textContent()).toContain('CI deploys');
    expect(new URL(page.url()).pathname).toBe(`/developers/webhooks/${id}`);
    await expect.poll(() => page.locator('.deliveries').textContent()).toContain('Nothing sent yet');

    // Delete asks first, then returns to the (now empty) list.
    await page.getByRole('button', { name: 'Delete…' }).click();
    expect(await dialog.textContent()).toContain(
      'Nothing more is sent to https://ci.example.com/cadre-events',
    );
    await dialog.getByRole('button', { name: 'Delete the endpoint' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('Webhooks');
    await expect.poll(() => page.locator('.webhooks-intro').count()).toBe(1);
    expect(await endpoints()).toEqual([]);
    await page.goto(`${server.url}/developers/webhooks/${id}`);
    await expect.poll(() => heading(page).textContent()).toContain('Endpoint not found');
    expect(problems).toEqual([]);
    await close();
  });

  it('shows the delivery log (status, latency, time, the answer as text), sends a test event and resends', {
    timeout: 150_000,
  }, async () => {
    clock.set(new Date());
    receiver.respond('/chat', status(500, '<b>down</b> for maintenance'), status(200, 'thanks'));
    const created = await server.request<{ data: { endpoint: Endpoint } }>(
      'POST',
      '/api/v1/webhook-endpoints',
      {
        key: org.ownerKey,
        body: { url: receiver.url('/chat'), eventTypes: ['member.joined'], description: 'Chat bot' },
      },
    );
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.endpoint.id;
    await addMember(server, org, 'member');
    await waitFor(() => receiver.at('/chat')[0], 'the first attempt');

    const { page, problems, close } = await openConsole(browser);
    await signIn(page, `/developers/webhooks/${id}`);
    await expect.poll(() => heading(page).textContent()).toContain('Chat bot');
    const rows = page.locator('.deliveries tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const first = rows.first();
    expect(await first.locator('th').textContent()).toContain('Member joined');
    await expect.poll(() => first.locator('.badge').textContent()).toBe('Pending');
    expect(await first.textContent()).toMatch(/HTTP 500 · \d+ ms/);
    expect(await first.textContent()).toContain('next try');
    // The answer's excerpt is text: no <b> element is made of it.
    expect(await first.locator('pre').textContent()).toBe('<b>down</b> for maintenance');
    expect(await page.locator('main b').count()).toBe(0);
    await expect
      .poll(() => page.locator('.notice-warning').textContent())
      .toContain('Deliveries are failing: the first failure was');
    // Its status says so too, not only "Enabled".
    expect(await page.locator('main h1 .badge').textContent()).toBe('Enabled, failing');
    await screenshots(page, 'webhook-deliveries-failing');
    await expectAccessible(page, 'a failing endpoint');

    // Send a test event: it arrives (signed), and the log shows it delivered.
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'test event' }).count()).toBe(1);
    const test = await waitFor(
      () => receiver.at('/chat').find((entry) => entry.event.type === 'webhook.test'),
      'the test event',
    );
    await expect.poll(() => rows.count()).toBe(2);
    const testRow = rows.first();
    expect(await testRow.locator('th').textContent()).toContain('Test event');
    await expect.poll(() => testRow.locator('.badge').textContent()).toBe('Delivered');
    expect(await testRow.textContent()).toMatch(/HTTP 200 · \d+ ms/);

    // The retry of the first delivery (the clock moved to its time) succeeds: two attempts, both listed.
    const pending = (
      await server.request<{ data: Array<{ id: string; status: string; nextAttemptAt: string | null }> }>(
        'GET',
        `/api/v1/webhook-endpoints/${id}/deliveries?status=pending`,
        { key: org.ownerKey },
      )
    ).body.data[0]!;
    clock.set(new Date(pending.nextAttemptAt!));
    server.context.webhookWorker!.wake();
    const retried = rows.last();
    await expect.poll(() => retried.locator('.badge').textContent(), { timeout: 20_000 }).toBe('Delivered');
    expect(await retried.locator('summary').textContent()).toBe('All 2 attempts');
    await retried.locator('summary').click();
    expect(await retried.locator('.attempts li').allTextContents()).toEqual([
      expect.stringMatching(/: HTTP 500 · \d+ ms$/),
      expect.stringMatching(/: HTTP 200 · \d+ ms$/),
    ]);
    await expect.poll(() => page.locator('.notice-warning').count()).toBe(0);
    await screenshots(page, 'webhook-deliveries');
    await expectAccessible(page, 'the delivery log');

    // Resend the test event: sent again with the same webhook-id.
    await testRow.getByRole('button', { name: /^Resend/ }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'sent again' }).count()).toBe(1);
    const again = await waitFor(
      () => receiver.at('/chat').filter((entry) => entry.event.type === 'webhook.test')[1],
      'the resent test event',
    );
    expect(again.headers['webhook-id']).toBe(test.headers['webhook-id']);
    await expect.poll(() => testRow.locator('summary').textContent()).toBe('All 2 attempts');

    // Only the failed ones: none.
    await page.getByLabel('Show').selectOption('failed');
    await expect
      .poll(() => page.locator('.deliveries').textContent())
      .toContain('No delivery with this status');
    expect(problems).toEqual([]);
    await close();
  });

  it('an endpoint that answers 410 Gone is disabled by Cadre, and its page says why', {
    timeout: 90_000,
  }, async () => {
    receiver.respond('/gone', status(410, 'this hook was removed'));
    const created = await server.request<{ data: { endpoint: Endpoint } }>(
      'POST',
      '/api/v1/webhook-endpoints',
      {
        key: org.ownerKey,
        body: { url: receiver.url('/gone'), eventTypes: ['member.joined'], description: 'Old deploy hook' },
      },
    );
    const id = created.body.data.endpoint.id;
    await addMember(server, org, 'member');
    await waitFor(() => receiver.at('/gone')[0], 'the attempt');
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, '/developers/webhooks');
    const card = page.locator('.endpoint').filter({ hasText: 'Old deploy hook' });
    await expect.poll(() => card.locator('.badge').textContent()).toBe('Disabled by Cadre');
    expect(await card.textContent()).toContain('Cadre disabled this endpoint');
    await card.locator('.endpoint-title a').click();
    await expect.poll(() => heading(page).textContent()).toContain('Old deploy hook');
    const banner = page.locator('.notice-warning');
    await expect.poll(() => banner.textContent()).toContain('Cadre disabled this endpoint');
    expect(await banner.textContent()).toContain('410');
    expect(await page.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
    expect(await page.locator('.deliveries').textContent()).toContain(
      'Enable the endpoint to send a test event',
    );
    await screenshots(page, 'webhook-endpoint-disabled');
    await expectAccessible(page, 'an endpoint Cadre disabled');
    await page.getByRole('button', { name: /^Enable/ }).click();
    await expect.poll(() => banner.count()).toBe(0);
    await expect.poll(() => page.getByRole('button', { name: 'Send test event' }).count()).toBe(1);
    const stored = await server.request<{ data: Endpoint & { disabledReason: string | null } }>(
      'GET',
      `/api/v1/webhook-endpoints/${id}`,
      { key: org.ownerKey },
    );
    expect(stored.body.data).toMatchObject({ enabled: true, disabledReason: null });
    expect(problems).toEqual([]);
    await close();
  });

  it('lists events newest first with a type filter and payloads as text', { timeout: 90_000 }, async () => {
    await addMember(server, org, 'admin');
    const all = await server.request<{ data: unknown[] }>('GET', '/api/v1/events?type=member.joined', {
      key: org.ownerKey,
    });
    const joined = all.body.data.length;
    expect(joined).toBeGreaterThanOrEqual(2);
    receiver.respond('/audit-bot', status(204));
    const bot = await server.request('POST', '/api/v1/webhook-endpoints', {
      key: org.ownerKey,
      body: { url: receiver.url('/audit-bot'), eventTypes: ['api_key.created'], description: 'Audit bot' },
    });
    expect(bot.status, bot.text).toBe(201);
    const { page, problems, close } = await openConsole(browser);
    await signIn(page, '/developers/events');
    await expect.poll(() => heading(page).textContent()).toBe('Events');
    const events = page.getByRole('table', { name: 'Events' });
    const items = events.locator('tbody tr');
    await expect.poll(() => items.count()).toBeGreaterThan(2);
    const times = await items
      .locator('time')
      .evaluateAll((all) => all.map((t) => t.getAttribute('datetime')!));
    expect([...times].sort().reverse()).toEqual(times);

    await page.getByLabel('Type').selectOption('member.joined');
    await expect
      .poll(() => items.locator('td[data-label="Event"]').allTextContents())
      .toEqual(Array(joined).fill('Member joined member.joined'));
    // The details open beside the list: the payload as delivered, the ids to copy, sending it.
    await items
      .first()
      .getByRole('button', { name: /^Details/ })
      .click();
    const details = page.getByRole('dialog', { name: 'Member joined' });
    const payload = details.locator('pre');
    const shown = JSON.parse((await payload.textContent())!) as { member: { role: string } };
    // Newest first: the admin just added.
    expect(shown.member.role).toBe('admin');
    expect(await payload.textContent()).toContain('\n  "member": {');
    // Any event can be sent to an endpoint, even one not subscribed to its type ("Audit bot").
    const eventId = (await details.locator('code.event-id').textContent())!;
    expect(await items.first().locator('td[data-label="Id"]').textContent()).toBe(eventId);
    const send = details.getByRole('form');
    await send.getByLabel('Send to').selectOption({ label: 'Audit bot' });
    await send.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => send.getByRole('status').textContent()).toContain('Queued: see its deliveries');
    const arrived = await waitFor(() => receiver.at('/audit-bot')[0], 'the event sent from the Events page');
    expect(arrived.event).toMatchObject({ id: eventId, type: 'member.joined' });
    await page.keyboard.press('Escape');
    await expect.poll(() => details.isVisible()).toBe(false);

    const facts = () => items.locator('td[data-label="Id"]').allTextContents();
    const newest = await facts();
    await page.getByLabel('Order').selectOption('oldest');
    await expect.poll(facts).toEqual([...newest].reverse());
    // The filters are in the address: a reload (or a shared link) keeps them.
    expect(new URL(page.url()).search).toBe('?type=member.joined&order=oldest');
    await page.reload();
    await expect.poll(facts).toEqual([...newest].reverse());
    expect(await page.getByLabel('Type').inputValue()).toBe('member.joined');
    await screenshots(page, 'events');
    await items
      .last()
      .getByRole('button', { name: /^Details/ })
      .click();
    await expect.poll(() => details.isVisible()).toBe(true);
    await screenshots(page, 'event-details');
    await expectAccessible(page, 'events, filtered');
    expect(problems).toEqual([]);
    await close();
  });

  it("names each event's record and links it: a person, a key, an Expert version; a removed one in words", {
    timeout: 90_000,
  }, async () => {
    const adminId = await addMember(server, org, 'admin');
    const adminKey = await createKey(server, org, adminId);
    const renamed = await server.request('PATCH', '/api/v1/me', {
      key: adminKey.key,
      body: { name: 'Ada Admin' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const goneId = await addMember(server, org, 'member');
    const removed = await server.request('DELETE', `/api/v1/organizations/${org.slug}/members/${goneId}`, {
      key: org.ownerKey,
    });
    expect(removed.status, removed.text).toBe(200);
    const key = await server.request<{ data: { id: string } }>('POST', '/api/v1/api-keys', {
      key: org.ownerKey,
      body: { name: 'ci-deploy', grants: { type: 'organization', permissions: ['members:read'] } },
    });
    expect(key.status, key.text).toBe(200);
    const expert = `@${org.slug}/event-writer@1.0.0`;
    await published(server, org.ownerKey, expertBody(`@${org.slug}/event-writer`, '1.0.0'));
    const all = await server.request<{ data: Array<{ resource: { type: string; id: string } }> }>(
      'GET',
      '/api/v1/events?limit=100',
      { key: org.ownerKey },
    );
    // Ids other than an Expert version's (its id is its name@version): none may show in running text.
    const ids = all.body.data.filter((e) => e.resource.type !== 'expert').map((e) => e.resource.id);
    expect(ids).toEqual(expect.arrayContaining([adminId, goneId, key.body.data.id]));

    const { page, problems, close } = await openConsole(browser);
    await signIn(page, '/developers/events');
    const items = page.getByRole('table', { name: 'Events' }).locator('tbody tr');
    const on = items.locator('td[data-label="On"]');
    // Named once the members and keys lists have arrived (one query each).
    await expect.poll(() => on.allTextContents()).toContain('Person Ada Admin');
    for (const text of await on.allTextContents()) {
      for (const id of ids) expect(text).not.toContain(id);
    }
    const row = (name: string) =>
      items.filter({ has: page.locator('td[data-label="On"]', { hasText: name }) });
    const link = (name: string) => on.getByRole('link', { name, exact: true }).first();
    expect(await link('Ada Admin').getAttribute('href')).toBe('/members');
    expect(await link('ci-deploy').getAttribute('href')).toBe('/keys');
    expect(await link(expert).getAttribute('href')).toBe(`/experts/@${org.slug}/event-writer@1.0.0`);
    expect(await row('ci-deploy').first().locator('td[data-label="Event"]').textContent()).toContain(
      'API key created',
    );
    expect(await row(expert).first().locator('td[data-label="Event"]').textContent()).toContain(
      'Expert version published',
    );
    // The person removed since: said in words, linked nowhere.
    const gone = on.filter({ hasText: 'a removed person' });
    await expect.poll(() => gone.count()).toBeGreaterThanOrEqual(1);
    expect(await gone.first().textContent()).toBe('Person a removed person');
    expect(await gone.first().getByRole('link').count()).toBe(0);
    // The longest types (webhook_endpoint.disabled) break after a dot: nothing hides to the right at 1280 px.
    const overflow = await page
      .locator('main .table-scroll')
      .evaluate((box) => box.scrollWidth - box.clientWidth);
    expect(overflow, 'the Events table wider than its box').toBeLessThanOrEqual(0);
    await screenshots(page, 'events-named');
    await expectAccessible(page, 'events with named records');

    // The details keep the id, to copy, beside the name.
    await row('ci-deploy')
      .first()
      .getByRole('button', { name: /^Details/ })
      .click();
    const details = page.getByRole('dialog', { name: 'API key created' });
    await expect.poll(() => details.isVisible()).toBe(true);
    const fact = details.locator('dd.copyable').first();
    expect(await fact.getByRole('link', { name: 'ci-deploy' }).getAttribute('href')).toBe('/keys');
    expect(await fact.locator('code').textContent()).toBe(key.body.data.id);
    expect(await fact.getByRole('button', { name: 'Copy id' }).count()).toBe(1);
    await screenshots(page, 'event-details-named');
    await expectAccessible(page, "an event's details, named");
    // The link goes to the page that shows the record.
    await page.keyboard.press('Escape');
    await link('Ada Admin').click();
    await expect.poll(() => heading(page).textContent()).toBe('Members');
    expect(problems).toEqual([]);
    await close();
  });

  it('a member sees no Developers entry, and the pages say who manages webhooks', {
    timeout: 90_000,
  }, async () => {
    const { page, problems, close } = await openConsole(browser, { viewport: PHONE });
    await signIn(page, '/developers/webhooks', memberEmail);
    await expect.poll(() => heading(page).textContent()).toBe('Webhooks');
    await expect.poll(() => page.locator('main').textContent()).toContain('Only owners and admins');
    expect(await page.locator('main').textContent()).toContain('A webhook endpoint is a URL');
    expect(await page.getByRole('button', { name: 'Add an endpoint' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Menu' }).click();
    const main = page.getByRole('navigation', { name: 'Main' });
    await expect.poll(() => main.getByRole('link', { name: 'Members' }).count()).toBe(1);
    expect(await main.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    expect(await main.getByRole('link', { name: 'Events' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await screenshots(page, 'webhooks-member');
    await expectAccessible(page, 'webhooks, as a member');
    await page.goto(`${server.url}/developers/events`);
    await expect.poll(() => page.locator('main .notice').textContent()).toContain('only owners and admins');
    expect(problems).toEqual([]);
    await close();
  });

  it('a Cadre without CADRE_ENCRYPTION_KEYS says the operator must set it', { timeout: 90_000 }, async () => {
    const bare = await startServer();
    try {
      const team = await createOrganization(bare, 'team');
      await setPassword(bare, team.ownerId);
      const { page, problems, close } = await openConsole(browser);
      await page.goto(`${bare.url}/sign-in?next=/developers/webhooks`);
      await page.getByLabel('Email').fill(`owner@${team.slug}.test`);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => heading(page).textContent()).toBe('Webhooks');
      await page.getByRole('button', { name: 'Add an endpoint' }).click();
      await page.getByLabel('Endpoint URL').fill('https://ci.example.com/cadre-events');
      await page.getByLabel(/^Member joined/).check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const alert = page.locator('form').getByRole('alert');
      await expect
        .poll(() => alert.textContent())
        .toContain(
          'Webhooks are not set up on this Cadre yet: its operator has to set CADRE_ENCRYPTION_KEYS.',
        );
      expect(await alert.textContent()).not.toContain('busy');
      expect(problems).toEqual([]);
      await close();
    } finally {
      await bare.close();
    }
  });

  it('on a phone, the owner reaches the webhooks through the menu', { timeout: 60_000 }, async () => {
    const { page, problems, close } = await openConsole(browser, { viewport: PHONE });
    await signIn(page, '/home');
    await expect.poll(() => heading(page).textContent()).toBe(org.slug);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('Webhooks');
    expect(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe('false');
    expect(problems).toEqual([]);
    await close();
  });
});
