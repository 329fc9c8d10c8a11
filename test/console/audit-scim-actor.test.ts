import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScimClient } from '../scim/scim-client.js';
import { type SsoWorld, startSsoWorld } from '../sso/harness.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { setPassword } from '../support/session.js';
import { openConsole, pageHeading, signInAs } from './console-page.js';

// What SCIM provisioning changes is recorded as SCIM's doing (actor kind `scim`), not as Cadre's own, and the
// console's audit log and events say so in words.

let world: SsoWorld;
let chromium: TestBrowser | undefined;
let browser: Browser;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  world = await startSsoWorld();
  await setPassword(world.server, world.org.ownerId);
});
afterAll(async () => {
  await chromium?.close();
  await world?.close();
});

type Actor = { kind: string; userId: string | null; apiKeyId: string | null };

describe('changes made by SCIM provisioning', () => {
  it('are audited and emitted with actor kind scim, and the console names SCIM provisioning', {
    timeout: 120_000,
  }, async () => {
    const made = await world.server.request<{ data: { token: string } }>('POST', '/api/v1/scim/token', {
      key: world.org.ownerKey,
    });
    expect(made.status, made.text).toBe(201);
    const scim = new ScimClient(`${world.server.url}/scim/v2`, made.body.data.token);
    const created = await scim.createUser(`frank@${world.domain}`);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = (created.body as { id: string }).id;
    const deactivated = await scim.patchUser(id, [{ op: 'replace', path: 'active', value: false }]);
    expect(deactivated.status, JSON.stringify(deactivated.body)).toBe(200);

    const audit = await world.server.request<{ data: Array<{ action: string; actor: Actor }> }>(
      'GET',
      `/api/v1/organizations/${world.org.id}/audit-events?limit=100`,
      { key: world.org.ownerKey },
    );
    const byAction = (action: string) => audit.body.data.find((event) => event.action === action);
    for (const action of ['membership.created', 'membership.removed']) {
      expect(byAction(action)?.actor, action).toEqual({
        kind: 'scim',
        userId: null,
        apiKeyId: null,
        name: null,
      });
    }
    const events = await world.server.request<{ data: Array<{ type: string; actor: Actor }> }>(
      'GET',
      '/api/v1/events?limit=100',
      { key: world.org.ownerKey },
    );
    expect(events.status, events.text).toBe(200);
    const removed = events.body.data.find((event) => event.type === 'member.removed');
    expect(removed?.actor).toEqual({ kind: 'scim', userId: null, apiKeyId: null });

    const { page, problems, close } = await openConsole(browser);
    await signInAs(page, world.server.url, `owner@${world.org.slug}.test`, '/audit');
    await expect.poll(() => pageHeading(page).textContent()).toBe('Audit log');
    const rows = page.locator('main tbody tr');
    const removal = rows.filter({ hasText: 'frank@' }).filter({ hasText: /removed/i });
    await expect.poll(() => removal.count()).toBeGreaterThan(0);
    const text = await removal.first().textContent();
    expect(text).toContain('SCIM provisioning');
    expect(text).not.toContain('Cadre');
    expect(problems).toEqual([]);
    await close();
  });
});
