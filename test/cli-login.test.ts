import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type TestBrowser } from './support/browser.js';
import { runCli } from './support/cli-harness.js';
import { addMember, createKey, createOrganization, type TestOrganization } from './support/fixtures.js';
import { startServer, type TestServer } from './support/server.js';
import { PASSWORD, setPassword } from './support/session.js';

// `cadre login` end to end: the CLI asks, a person signs in and approves in Chromium, the CLI keeps its key.
let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
let config: string;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer();
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  config = mkdtempSync(join(tmpdir(), 'cadre-login-'));
});
afterAll(async () => {
  await chromium?.close();
  await server?.close();
  rmSync(config, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({
  CADRE_URL: server.url,
  XDG_CONFIG_HOME: config,
  ...extra,
});

/** The person's side: the page the CLI opened, sign-in, then Approve (or Deny). */
async function decideInBrowser(url: string, approve: boolean) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await page.getByLabel('Email').fill(`owner@${org.slug}.test`);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.getByTestId('cli-code').count()).toBe(1);
  await page.getByLabel('Expires').selectOption('30');
  await page.getByRole('button', { name: approve ? 'Approve' : 'Deny' }).click();
  await expect
    .poll(() => page.locator('main h1').textContent())
    .toBe(approve ? 'The CLI is signed in' : 'Sign-in refused');
  await context.close();
}

describe('cadre login', () => {
  it('signs in through the browser, stores a 0600 key per server, works, says who, and logs out', async () => {
    let approval: Promise<void> | undefined;
    let opened = '';
    const login = await runCli(['login'], {
      cwd: process.cwd(),
      env: env(),
      openUrl: async (url) => {
        opened = url;
        approval = decideInBrowser(url, true);
        return true;
      },
    });
    await approval;
    expect(login.code, login.stderr).toBe(0);
    expect(opened).toMatch(new RegExp(`^${server.url}/cli-login\\?code=[A-Z]{4}-[A-Z]{4}$`));
    expect(login.stderr).toContain(opened.split('=')[1]);
    expect(login.stdout).toContain(`Signed in to ${org.slug}`);

    const file = join(config, 'cadre', 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as {
      servers: Record<string, { key: string; apiKeyId: string }>;
    };
    const mine = stored.servers[server.url]!;
    expect(mine.key).toMatch(/^cadre_[0-9A-Za-z]{40}$/);

    // The key is the person's, named after the machine, expiring as chosen.
    const record = await server.request<{ data: { name: string; userId: string; expiresAt: string } }>(
      'GET',
      `/api/v1/api-keys/${mine.apiKeyId}`,
      { key: org.ownerKey },
    );
    expect(record.body.data).toMatchObject({ name: `cadre on ${hostname()}`, userId: org.ownerId });
    expect(Date.parse(record.body.data.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const whoami = await runCli(['whoami'], { cwd: process.cwd(), env: env() });
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stdout).toContain(`owner@${org.slug}.test, owner of ${org.slug} (${org.slug})`);
    expect(whoami.stderr).toContain('the key is from cadre login');
    expect((await runCli(['keys', 'list'], { cwd: process.cwd(), env: env() })).code).toBe(0);

    // CADRE_API_KEY still wins.
    const memberId = await addMember(server, org, 'member');
    const memberKey = await createKey(server, org, memberId);
    const overridden = await runCli(['whoami'], {
      cwd: process.cwd(),
      env: env({ CADRE_API_KEY: memberKey.key }),
    });
    expect(overridden.stdout).toContain(', member of');
    expect(overridden.stderr).toContain('the key is from CADRE_API_KEY');

    const logout = await runCli(['logout'], { cwd: process.cwd(), env: env() });
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stdout).toContain(`key ${mine.apiKeyId} revoked`);
    expect((await server.request('GET', '/api/v1/me', { key: mine.key })).status).toBe(401);
    const after = await runCli(['whoami'], { cwd: process.cwd(), env: env() });
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('run cadre login');
  });

  it('fails clearly when the person denies, and stores nothing', async () => {
    let decision: Promise<void> | undefined;
    const login = await runCli(['login', '--name', 'ci-box'], {
      cwd: process.cwd(),
      env: env(),
      openUrl: async (url) => {
        decision = decideInBrowser(url, false);
        return true;
      },
    });
    await decision;
    expect(login.code).toBe(1);
    expect(login.stderr).toContain('refused in the console');
    const stored = JSON.parse(readFileSync(join(config, 'cadre', 'credentials.json'), 'utf8')) as {
      servers: Record<string, unknown>;
    };
    expect(stored.servers[server.url]).toBeUndefined();
  });

  it('prints the URL and code without a browser', async () => {
    const started = await server.request<{ data: { userCode: string; verificationUrl: string } }>(
      'POST',
      '/auth/cli-logins',
      { body: { name: 'x', keyStart: 'cadre_abcdef', keyDigest: 'a'.repeat(64) } },
    );
    expect(started.status).toBe(200);
    expect(started.body.data.verificationUrl).toBe(`${server.url}/cli-login`);
    // An API key cannot approve: approving takes a signed-in person.
    const byKey = await server.request('POST', `/auth/cli-logins/${started.body.data.userCode}/approve`, {
      key: org.ownerKey,
      body: { grants: { type: 'organization', permissions: ['*'] } },
    });
    expect(byKey.status).toBe(401);
  });
});
