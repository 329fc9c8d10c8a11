import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/lib/clock.js';
import { generateKeyEntry, parseKeyRing } from '../../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../../src/lib/outbound/address-policy.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { PASSWORD, setPassword } from '../support/session.js';
import { expectAccessible, openConsole, pageHeading, screenshots } from './console-page.js';

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
const clock = createManualClock(new Date('2026-01-10T12:00:00Z'));
const FORMULA = '=HYPERLINK("http://evil.test","click")';

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer({
    clock,
    keyRing: parseKeyRing(generateKeyEntry('k1')),
    webhooks: { allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance },
  });
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  const january = await server.request<{ data: { id: string } }>('POST', '/api/v1/projects', {
    key: org.ownerKey,
    body: { slug: 'winter', name: 'Winter' },
  });
  expect(january.status, january.text).toBe(201);
  clock.set(new Date('2026-03-10T12:00:00Z'));
  const march = await server.request<{ data: { id: string } }>('POST', '/api/v1/projects', {
    key: org.ownerKey,
    body: { slug: 'spring', name: 'Spring' },
  });
  expect(march.status, march.text).toBe(201);
  const renamed = await server.request('PATCH', `/api/v1/projects/${march.body.data.id}`, {
    key: org.ownerKey,
    body: { name: FORMULA },
  });
  expect(renamed.status, renamed.text).toBe(200);
  // The operator adds a member: an event whose actor is not the owner.
  const member = await server.admin('POST', `/admin/v1/organizations/${org.id}/members`, {
    email: `member@${org.slug}.test`,
    role: 'member',
  });
  expect(member.status, member.text).toBe(201);
  // Back to today: the session cookie's expiry is read by the browser against its own clock.
  clock.set(new Date());
});
afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const heading = pageHeading;
const rows = (page: Page) => page.locator('main tbody tr');
const ownerEmail = () => `owner@${org.slug}.test`;

async function download(page: Page, name: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()]);
  const dir = mkdtempSync(join(tmpdir(), 'cadre-audit-export-'));
  try {
    const saved = join(dir, file.suggestedFilename());
    await file.saveAs(saved);
    return readFileSync(saved, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the audit log in the browser', () => {
  it('names people and targets, filters by action, actor and dates, and exports the filtered range', {
    timeout: 90_000,
  }, async () => {
    const { page, problems, close } = await openConsole(browser);
    await page.goto(`${server.url}/sign-in?next=/audit`);
    await page.getByLabel('Email').fill(ownerEmail());
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => heading(page).textContent()).toBe('Audit log');
    await expect.poll(() => rows(page).count()).toBeGreaterThan(3);
    const all = await page.locator('main table').textContent();
    // People by email (no name set), never by user id; targets by name; what changed.
    expect(all).toContain(ownerEmail());
    expect(all).not.toContain(org.ownerId);
    expect(all).toContain('Project renamed');
    expect(all).toContain(`Spring → ${FORMULA}`);
    expect(all).toContain('Winter');
    expect(all).toContain(`member@${org.slug}.test`);
    expect(all).toContain('The operator');
    await screenshots(page, 'audit-log');
    await expectAccessible(page, 'audit log');

    // By action: a list of the documented actions, not free text.
    const actions = await page.getByLabel('Action').locator('option').allTextContents();
    expect(actions).toContain('Project created');
    await page.getByLabel('Action').selectOption('project.created');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows(page).count()).toBe(2);

    // And by date range: only March.
    await page.getByLabel('From').fill('2026-03-01');
    await page.getByLabel('To').fill('2026-03-31');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).first().textContent()).toContain('Spring');
    await screenshots(page, 'audit-log-filtered');
    await expectAccessible(page, 'audit log, filtered');

    const csv = await download(page, 'CSV');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe(
      'createdAt,action,actorKind,actorName,actorUserId,actorApiKeyId,targetType,targetName,targetId,metadata',
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('project.created');
    expect(lines[1]).toContain(ownerEmail());
    const ndjson = await download(page, 'NDJSON');
    const events = ndjson
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; target: { name: string } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ action: 'project.created', target: { name: FORMULA } });

    // By actor (a person chosen by name), over every action and date: the operator's event is not theirs.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Who').selectOption({ label: ownerEmail() });
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.locator('main table').textContent()).not.toContain('The operator');
    const byOwner = await rows(page).count();
    expect(byOwner).toBeGreaterThanOrEqual(3);
    const ownerCsv = (await download(page, 'CSV')).trim().split('\r\n');
    expect(ownerCsv).toHaveLength(byOwner + 1);
    // A name a spreadsheet would run as a formula is neutralised in its cell.
    expect(ownerCsv.join('\n')).toContain(`"'${FORMULA.replaceAll('"', '""')}"`);
    expect(ownerCsv.some((line) => /(^|,)"?=/.test(line))).toBe(false);
    expect(problems).toEqual([]);
    await close();
  });

  it('says each change as a sentence, names people instead of ids, and opens the details with the raw JSON', {
    timeout: 120_000,
  }, async () => {
    // An invitation accepted (the event names its inviter and invitation by id), a role change, a removal,
    // a policy change and a webhook endpoint.
    const invited = await server.request<{ data: { token: string } }>(
      'POST',
      `/api/v1/organizations/${org.slug}/invitations`,
      { key: org.ownerKey, body: { email: `grace@${org.slug}.test`, role: 'admin' } },
    );
    expect(invited.status, invited.text).toBe(201);
    const accepted = await server.request<{ data: { user: { id: string } } }>(
      'POST',
      `/auth/invitations/${invited.body.data.token}/accept`,
      { body: { name: 'Grace Hopper', password: PASSWORD } },
    );
    expect(accepted.status, accepted.text).toBe(200);
    const graceId = accepted.body.data.user.id;
    const member = `/api/v1/organizations/${org.slug}/members/${graceId}`;
    expect(
      (await server.request('PUT', member, { key: org.ownerKey, body: { role: 'member' } })).status,
    ).toBe(200);
    expect((await server.request('DELETE', member, { key: org.ownerKey })).status).toBe(200);
    const policy = await server.request('PUT', '/api/v1/organization/publish-policy', {
      key: org.ownerKey,
      body: { approvalRequiredForWidening: true },
    });
    expect(policy.status, policy.text).toBe(200);
    const endpoint = await server.request('POST', '/api/v1/webhook-endpoints', {
      key: org.ownerKey,
      body: { url: 'http://127.0.0.1:9/hook', eventTypes: ['member.joined'], description: 'Chat bot' },
    });
    expect(endpoint.status, endpoint.text).toBe(201);

    for (const [size, colorScheme] of [
      [{ width: 1280, height: 800 }, 'light'],
      [{ width: 390, height: 844 }, 'dark'],
    ] as const) {
      const { page, problems, close } = await openConsole(browser, { viewport: size, colorScheme });
      await page.goto(`${server.url}/sign-in?next=/audit`);
      await page.getByLabel('Email').fill(ownerEmail());
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.locator('main table').textContent()).toContain('Webhook endpoint added');
      const table = (await page.locator('main table').textContent()) ?? '';
      // Every change in words: no JSON, no user id, no raw action code.
      expect(table).toContain('Approval for widening: off → on');
      expect(table).toContain(`Invited by ${ownerEmail()}`);
      expect(table).toContain(`Invitation: grace@${org.slug}.test`);
      expect(table).toContain('Role: admin → member');
      expect(table).toContain('Chat bot');
      expect(table).not.toContain(graceId);
      expect(table).not.toContain(org.ownerId);
      expect(table).not.toMatch(/[{}]|"[a-zA-Z]+":/);
      expect(table).not.toContain('webhook_endpoint.created');
      expect(table).not.toContain('payment provider');
      // The action filter knows the webhook actions.
      await page.getByLabel('Action').selectOption({ label: 'Webhook endpoint added' });
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect.poll(() => rows(page).count()).toBe(1);
      // The details: a side panel with the ids to copy and the raw JSON.
      const details = page.getByRole('button', { name: /^Details: Webhook endpoint added/ });
      await details.click();
      const panel = page.getByRole('dialog', { name: 'Webhook endpoint added' });
      await expect.poll(() => panel.isVisible()).toBe(true);
      expect(await panel.getByRole('link', { name: 'Chat bot' }).getAttribute('href')).toMatch(
        /^\/developers\/webhooks\//,
      );
      await panel.getByText('Raw JSON').click();
      expect(await panel.locator('pre').textContent()).toContain('"action": "webhook_endpoint.created"');
      await screenshots(page, `audit-details-${colorScheme}`);
      await expectAccessible(page, `audit details, ${colorScheme}`);
      await page.keyboard.press('Escape');
      await expect.poll(() => panel.isVisible()).toBe(false);
      await expect
        .poll(() => details.evaluate((button) => button === button.ownerDocument.activeElement))
        .toBe(true);
      await page.getByRole('button', { name: 'Clear' }).click();
      await expect.poll(() => rows(page).count()).toBeGreaterThan(5);
      await screenshots(page, `audit-words-${colorScheme}`);
      await expectAccessible(page, `audit log in words, ${colorScheme}`);
      expect(problems).toEqual([]);
      await close();
    }
  });

  it('refuses a bad export query with 422 and a range that ends before it starts', async () => {
    const bad = await server.request(
      'GET',
      `/api/v1/organizations/${org.slug}/audit-events/export?format=xlsx`,
      { key: org.ownerKey },
    );
    expect(bad.status).toBe(422);
    const backwards = await server.request(
      'GET',
      `/api/v1/organizations/${org.slug}/audit-events/export?format=csv&from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z`,
      { key: org.ownerKey },
    );
    expect(backwards.status).toBe(422);
    const ok = await fetch(
      `${server.url}/api/v1/organizations/${org.slug}/audit-events/export?format=ndjson`,
      {
        headers: { authorization: `Bearer ${org.ownerKey}` },
      },
    );
    expect(ok.status).toBe(200);
    const lines = (await ok.text()).trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(lines.every((line) => typeof (JSON.parse(line) as { id: string }).id === 'string')).toBe(true);
    expect(ok.headers.get('content-type')).toContain('application/x-ndjson');
    expect(ok.headers.get('content-disposition')).toBe(`attachment; filename="audit-${org.slug}.ndjson"`);
  });
});
