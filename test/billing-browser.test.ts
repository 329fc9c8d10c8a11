import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from './support/browser.js';
import { createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { PASSWORD, setPassword } from './support/session.js';

let server: TestServer;
let org: TestOrganization;
let browser: Browser;
let chromiumProcess: TestBrowser | undefined;
let consoleUi: Server;
let consoleUrl: string;

beforeAll(async () => {
  // First: without Chromium the file fails at once, with the command that installs it.
  chromiumProcess = await launchChromium();
  browser = chromiumProcess.browser;
  server = await startServer();
  org = await createOrganization(server, 'personal');
  await setPassword(server, org.ownerId);
  // Stands in for the caller's own UI, on another origin: where successUrl and cancelUrl point.
  consoleUi = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Console</title><h1 id="landed">${req.url?.startsWith('/success') ? 'Payment complete' : 'Canceled'}</h1>`,
    );
  });
  await new Promise<void>((resolve) => consoleUi.listen(0, '127.0.0.1', resolve));
  consoleUrl = `http://127.0.0.1:${(consoleUi.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await chromiumProcess?.close();
  await new Promise((resolve) => consoleUi?.close(resolve));
  await server?.close();
});

describe('local provider checkout in a real browser', () => {
  it('logs in, starts a checkout, confirms it, lands on successUrl with the subscription active', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/healthz`);

    // The console signs in: the browser keeps the HttpOnly cookie, the page keeps the csrfToken.
    const email = `owner@${org.slug}.test`;
    const signedIn = await page.evaluate(
      async ({ email, password }) => {
        const res = await fetch('/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
        });
        return {
          status: res.status,
          body: (await res.json()) as { data: { csrfToken: string } },
          // Page code: `document` exists there, not in this file's Node types.
          cookieVisible: (globalThis as unknown as { document: { cookie: string } }).document.cookie.includes(
            'cadre_session',
          ),
        };
      },
      { email, password: PASSWORD },
    );
    expect(signedIn.status).toBe(200);
    expect(signedIn.cookieVisible).toBe(false);
    const cookies = await context.cookies();
    expect(cookies.find((cookie) => cookie.name === 'cadre_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Lax',
    });

    const checkout = await page.evaluate(
      async ({ orgId, csrfToken, consoleUrl }) => {
        const res = await fetch(`/api/v1/organizations/${orgId}/billing/checkout`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify({
            planKey: 'plus',
            successUrl: `${consoleUrl}/success`,
            cancelUrl: `${consoleUrl}/cancel`,
            csrfToken,
          }),
        });
        return { status: res.status, body: (await res.json()) as { data: { url: string } } };
      },
      { orgId: org.id, csrfToken: signedIn.body.data.csrfToken, consoleUrl },
    );
    expect(checkout.status).toBe(200);

    await page.goto(checkout.body.data.url);
    await expect(page.locator('h1').textContent()).resolves.toBe('Subscribe to Plus');
    await expect(page.locator('#price').textContent()).resolves.toBe('9.00 USD / month');
    await Promise.all([page.waitForURL(`${consoleUrl}/success`), page.click('#confirm')]);
    await expect(page.locator('#landed').textContent()).resolves.toBe('Payment complete');

    await page.goto(`${server.url}/healthz`);
    const subscription = await page.evaluate(async (orgId) => {
      const res = await fetch(`/api/v1/organizations/${orgId}/billing/subscription`);
      return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
    }, org.id);
    expect(subscription.status).toBe(200);
    expect(subscription.body.data).toMatchObject({ planKey: 'plus', status: 'active', provider: 'local' });

    // The portal: cancel at period end, back to the console.
    const portal = await page.evaluate(
      async ({ orgId, csrfToken, consoleUrl }) => {
        const res = await fetch(`/api/v1/organizations/${orgId}/billing/portal`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify({ returnUrl: `${consoleUrl}/settings`, csrfToken }),
        });
        return { status: res.status, body: (await res.json()) as { data: { url: string } } };
      },
      { orgId: org.id, csrfToken: signedIn.body.data.csrfToken, consoleUrl },
    );
    expect(portal.status).toBe(200);
    await page.goto(portal.body.data.url);
    await expect(page.locator('#status').textContent()).resolves.toBe('active');
    await Promise.all([page.waitForURL(`${consoleUrl}/settings`), page.click('#cancel')]);
    const after = await server.request<{ data: Record<string, unknown> }>(
      'GET',
      `/api/v1/organizations/${org.id}/billing/subscription`,
      { key: org.ownerKey },
    );
    expect(after.body.data).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    await context.close();
  });
});
