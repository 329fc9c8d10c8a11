import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_PERMISSIONS } from '../src/modules/auth/permissions.js';
import { openConsole, pageHeading } from './console/console-page.js';
import { launchChromium, type TestBrowser } from './support/browser.js';
import { runCli, tempProject } from './support/cli-harness.js';
import { http } from './support/http.js';
import { authorizeAtProvider, startTestProvider, type TestProvider } from './support/oidc-provider.js';
import { type CadreProcess, startCadre } from './support/process.js';
import { ADMIN_TOKEN } from './support/server.js';
import { PASSWORD } from './support/session.js';
import { startReceiver, verify } from './support/webhook-receiver.js';

// The second hour of a new team, told as one story: the built service as people run it (`CADRE_DEV=1`, the
// embedded database in a data directory), the real CLI and the console in Chromium, as a member (Mia), an
// admin (Adam) and an owner (Olive) of two organizations (Acme, Globex). Around it, real parts on loopback: an
// SMTP server for invitation emails, a webhook receiver and an OpenID provider (both allowed by CADRE_DEV=1
// alone). It ends by restarting the server on the same address and data.
let cadre: CadreProcess;
let chromium: TestBrowser | undefined;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let provider: TestProvider | undefined;
// Invitation emails go to a real SMTP server: only the mailed link proves an address (docs/admin-api.md).
const inbox: ParsedMail[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, _session, callback) {
    simpleParser(stream)
      .then((mail) => {
        inbox.push(mail);
        callback();
      })
      .catch(callback);
  },
});
const dataDir = mkdtempSync(join(tmpdir(), 'cadre-second-hour-'));
const config = mkdtempSync(join(tmpdir(), 'cadre-second-hour-config-'));
let serverEnv: Record<string, string>;

const OLIVE = 'olive@acme.test';
const ADAM = 'adam@acme.test';
const MIA = 'mia@people.test';
const MIA_PASSWORD = 'mia keeps a long password';

const admin = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => {
  const res = await http<T>(cadre.url, method, path, { key: ADMIN_TOKEN, ...(body ? { body } : {}) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};
type Created = { data: { organization: { id: string }; owner: { id: string }; apiKey: { key: string } } };

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  receiver = await startReceiver();
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  serverEnv = {
    CADRE_DEV: '1',
    CADRE_DATA_DIR: dataDir,
    CADRE_ADMIN_TOKEN: ADMIN_TOKEN,
    CADRE_SMTP_URL: `smtp://127.0.0.1:${port}`,
  };
  cadre = await startCadre(serverEnv);
});
afterAll(async () => {
  await chromium?.close();
  await cadre?.stop();
  await receiver?.close();
  await provider?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(config, { recursive: true, force: true });
});

const cli = (args: string[], key?: string, cwd = process.cwd()) =>
  runCli(args, {
    cwd,
    env: { CADRE_URL: cadre.url, XDG_CONFIG_HOME: config, ...(key ? { CADRE_API_KEY: key } : {}) },
  });
const ok = (run: { code: number; stdout: string; stderr: string }) => {
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  return run;
};

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${cadre.url}/sign-in?next=${encodeURIComponent('/home')}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The invitee's side of a link: a new person creates an account, a known one signs in to join. */
async function acceptInvitation(link: string, isNew: boolean) {
  const { page, problems, close } = await openConsole(browser);
  expect((await page.goto(link))?.status()).toBe(200);
  await expect.poll(() => pageHeading(page).textContent()).toMatch(/^Join (acme|globex)$/);
  expect(await page.locator('main').textContent()).toContain(MIA);
  if (isNew) await page.getByLabel('Your name').fill('Mia');
  await page.getByLabel('Password').fill(MIA_PASSWORD);
  await page.getByRole('button', { name: isNew ? 'Create account and join' : 'Sign in and join' }).click();
  await expect.poll(() => new URL(page.url()).pathname).toBe('/home');
  expect(problems).toEqual([]);
  await close();
}

describe('the second hour', () => {
  // One long story (about 18 s alone, dozens of CLI processes and page loads): room for a busy machine.
  it('an owner, an admin and a member of two organizations work through the CLI and the console', {
    timeout: 180_000,
  }, async () => {
    // The operator makes the two organizations: Olive owns Acme, Globex's owner makes Olive an admin there.
    const acme = await admin<Created>('POST', '/admin/v1/organizations', {
      slug: 'acme',
      name: 'acme',
      accountType: 'team',
      owner: { email: OLIVE },
    });
    const globex = await admin<Created>('POST', '/admin/v1/organizations', {
      slug: 'globex',
      name: 'globex',
      accountType: 'team',
      owner: { email: 'gus@globex.test' },
    });
    const olive = acme.data.apiKey.key;
    const adam = await admin<{ data: { user: { id: string } } }>(
      'POST',
      `/admin/v1/organizations/${acme.data.organization.id}/members`,
      { email: ADAM, role: 'admin' },
    );
    const adamKey = (
      await admin<{ data: { key: string } }>(
        'POST',
        `/admin/v1/organizations/${acme.data.organization.id}/users/${adam.data.user.id}/api-keys`,
        { grants: { type: 'organization', permissions: ['*'] } },
      )
    ).data.key;
    await admin('POST', `/admin/v1/organizations/${globex.data.organization.id}/members`, {
      email: OLIVE,
      role: 'admin',
    });
    expect(ok(await cli(['whoami'], olive)).stdout).toContain(`${OLIVE}, owner of acme (acme)`);

    // Olive invites Mia to Acme from the CLI (the organization is her key's), copies the link again, and
    // Mia accepts in Chromium with a new account.
    const invited = ok(await cli(['members', 'invite', '--email', MIA, '--role', 'member'], olive));
    const firstLink = invited.stdout.trim();
    expect(firstLink).toMatch(new RegExp(`^${cadre.url}/invitations/inv_[0-9A-Za-z]{43}$`));
    const pending = JSON.parse(ok(await cli(['members', 'invitations', '--json'], olive)).stdout) as Array<{
      id: string;
      email: string;
    }>;
    const invitation = pending.find((entry) => entry.email === MIA)!;
    const again = ok(await cli(['members', 'invitation-link', invitation.id], olive));
    expect(again.stderr).toContain('the previous copy no longer works');
    const link = again.stdout.trim();
    expect(link).not.toBe(firstLink);
    await acceptInvitation(link, true);

    // Olive, an admin of Globex, invites Mia there with a Globex key of her own. Mia's account came from a
    // copied link, so her email is not proven yet: she joins from the mailed link, with her current password.
    const oliveId = acme.data.owner.id;
    const oliveGlobex = (
      await admin<{ data: { key: string } }>(
        'POST',
        `/admin/v1/organizations/${globex.data.organization.id}/users/${oliveId}/api-keys`,
        { grants: { type: 'organization', permissions: ['*'] } },
      )
    ).data.key;
    expect(ok(await cli(['whoami'], oliveGlobex)).stdout).toContain(`${OLIVE}, admin of globex (globex)`);
    ok(await cli(['members', 'invite', '--email', MIA, '--role', 'member'], oliveGlobex));
    await expect.poll(() => inbox.filter((mail) => mail.subject?.includes('globex')).length).toBe(1);
    const mail = inbox.find((entry) => entry.subject?.includes('globex'))!;
    expect((mail.to as { text: string }).text).toBe(MIA);
    const mailed = new RegExp(`${cadre.url}/invitations/inv_[0-9A-Za-z]{43}`).exec(mail.text ?? '')?.[0];
    expect(mailed, mail.text).toBeDefined();
    await acceptInvitation(mailed!, true);

    // Mia signs in, picks Acme, switches to Globex in the header and makes her first key there: everything
    // her role allows.
    const mia = await openConsole(browser);
    await signIn(mia.page, MIA, MIA_PASSWORD);
    await expect.poll(() => pageHeading(mia.page).textContent()).toBe('Choose an organization');
    await mia.page.getByRole('button', { name: 'acme (member)' }).click();
    await expect.poll(() => pageHeading(mia.page).textContent()).toBe('acme');
    await mia.page.goto(`${cadre.url}/keys`);
    await expect.poll(() => pageHeading(mia.page).textContent()).toBe('API keys');
    await mia.page
      .getByLabel('Current organization', { exact: true })
      .selectOption(globex.data.organization.id);
    await expect
      .poll(() => mia.page.getByLabel('Current organization', { exact: true }).inputValue())
      .toBe(globex.data.organization.id);
    await mia.page.getByRole('button', { name: 'Create an API key' }).click();
    await mia.page.getByLabel('Everything your role allows (member), now and later').check();
    await mia.page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => mia.page.getByTestId('new-secret').count()).toBe(1);
    const miaGlobexKey = (await mia.page.getByTestId('new-secret').textContent()) ?? '';
    expect(ok(await cli(['whoami'], miaGlobexKey)).stdout).toContain(
      `Mia <${MIA}>, member of globex (globex)`,
    );
    // Exactly what a member may do: nothing more, nothing less.
    const me = await http<{ data: { permissions: string[] } }>(cadre.url, 'GET', '/api/v1/me', {
      key: miaGlobexKey,
    });
    expect(new Set(me.body.data.permissions)).toEqual(new Set(ROLE_PERMISSIONS.member));
    expect(mia.problems).toEqual([]);
    await mia.close();

    // `cadre login` for Mia, approved in the browser; whoami names her; her keys from the CLI.
    let approval: Promise<void> | undefined;
    const login = await runCli(['login', '--name', 'mia-laptop'], {
      cwd: process.cwd(),
      env: { CADRE_URL: cadre.url, XDG_CONFIG_HOME: config },
      openUrl: async (url) => {
        approval = (async () => {
          const { page, close } = await openConsole(browser);
          await page.goto(url);
          await page.getByLabel('Email').fill(MIA);
          await page.getByLabel('Password').fill(MIA_PASSWORD);
          await page.getByRole('button', { name: 'Sign in' }).click();
          const choose = page.getByRole('button', { name: 'acme (member)' });
          await expect
            .poll(async () => (await choose.count()) + (await page.getByTestId('cli-code').count()))
            .toBe(1);
          if ((await choose.count()) === 1) await choose.click();
          await expect.poll(() => page.getByTestId('cli-code').count()).toBe(1);
          await page.getByRole('button', { name: 'Approve' }).click();
          await expect.poll(() => page.locator('main h1').textContent()).toBe('The CLI is signed in');
          await close();
        })();
        return true;
      },
    });
    await approval;
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('Signed in to acme');
    const whoami = ok(await cli(['whoami']));
    expect(whoami.stdout).toContain(`Mia <${MIA}>, member of acme (acme)`);
    expect(whoami.stderr).toContain('the key is from cadre login');
    const made = ok(await cli(['keys', 'create', '--name', 'mia-script', '--json']));
    const scriptKey = JSON.parse(made.stdout) as { id: string; key: string };
    expect(ok(await cli(['keys', 'list'])).stdout).toMatch(
      new RegExp(`${scriptKey.id}\\s+mia-script\\s+cadre_\\w+\\s+active\\s.*everything the role allows`),
    );
    expect(ok(await cli(['keys', 'revoke', scriptKey.id])).stdout).toContain(scriptKey.id);
    expect((await http(cadre.url, 'GET', '/api/v1/me', { key: scriptKey.key })).status).toBe(401);

    // Olive: a project and an environment by slug (the organization is her key's).
    expect(ok(await cli(['projects', 'create', '--slug', 'web', '--name', 'Web'], olive)).stdout).toContain(
      'web',
    );
    const staging = ok(await cli(['projects', 'env', 'create', 'web', '--name', 'staging', '--json'], olive));
    expect(JSON.parse(staging.stdout)).toMatchObject({ name: 'staging' });
    const listed = JSON.parse(ok(await cli(['projects', 'list', '--json'], olive)).stdout) as Array<{
      slug: string;
      environments: Array<{ name: string }>;
    }>;
    expect(
      listed
        .find((p) => p.slug === 'web')
        ?.environments.map((e) => e.name)
        .sort(),
    ).toEqual(['development', 'production', 'staging']);

    // OAuth: a plain-http provider on loopback (CADRE_DEV=1 allows it) registered from the CLI, verified by
    // signing in at the provider, then a connection for the project's production environment.
    provider = await startTestProvider([
      {
        clientId: 'acme-app',
        clientSecret: 'acme-app-secret',
        redirectUris: [`${cadre.url}/api/oauth/callback/oidc`],
      },
    ]);
    const secretFile = join(config, 'client-secret');
    writeFileSync(secretFile, 'acme-app-secret\n');
    const added = ok(
      await cli(
        [
          'integrations',
          'add',
          'oidc',
          '--issuer',
          provider.issuer,
          '--client-id',
          'acme-app',
          '--client-secret-file',
          secretFile,
        ],
        olive,
      ),
    );
    expect(added.stdout).toContain('registered oidc version 1 (not verified yet)');
    const dance = async (path: string) => {
      const started = await http(cadre.url, 'GET', path, { key: olive });
      expect(started.status, started.text).toBe(302);
      const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0]!;
      const back = await authorizeAtProvider(
        started.headers.get('location')!,
        `${cadre.url}/api/oauth/callback/`,
      );
      const res = await http(cadre.url, 'GET', `${back.pathname}${back.search}`, {
        key: olive,
        headers: { cookie },
      });
      expect(res.status, res.text).toBe(302);
      return Object.fromEntries(new URL(res.headers.get('location')!).searchParams);
    };
    expect(await dance('/api/oauth/verify/oidc?returnTo=/settings/integrations')).toMatchObject({
      oauth_status: 'success',
    });
    expect(ok(await cli(['integrations', 'list'], olive)).stdout).toMatch(/oidc\s+\d+\s+yes\s+acme-app/);
    const connected = await dance('/api/oauth/start/oidc?projectId=web&environmentId=production');
    expect(connected).toMatchObject({ oauth_status: 'success' });

    // A webhook to a loopback receiver (CADRE_DEV=1 allows it) gets a signed delivery of a publish.
    const secret = ok(
      await cli(['webhooks', 'create', receiver.url('/hooks'), '--events', 'expert.published'], olive),
    ).stdout.trim();
    expect(secret).toMatch(/^whsec_/);
    const project = (version: string, widening: boolean) =>
      tempProject({
        'cadre.toml': `
[experts."@acme/helper"]
version = "${version}"
minRuntimeVersion = "0.1.0"
description = "Helps Acme"
instruction = "Help."
${widening ? '\n[experts."@acme/helper".skills.search]\ntype = "mcpSseSkill"\nendpoint = "https://mcp.example.com/sse"\n' : ''}`,
      });
    expect(ok(await cli(['publish'], olive, project('1.0.0', false))).stdout).toContain(
      'published @acme/helper@1.0.0',
    );
    await expect.poll(() => receiver.at('/hooks').length, { timeout: 30_000 }).toBeGreaterThan(0);
    const delivery = receiver.at('/hooks')[0]!;
    expect(() => verify(secret, delivery)).not.toThrow();
    expect(delivery.event).toMatchObject({
      type: 'expert.published',
      organizationId: acme.data.organization.id,
      data: { expert: { name: '@acme/helper', version: '1.0.0' } },
    });

    // Approval on: Adam is the second approver, so no warning; a widening version waits until he approves.
    const policy = ok(await cli(['policy', 'set', '--approval', 'on'], olive));
    expect(policy.stdout).toMatch(/approval for widening versions:\s+required/);
    expect(policy.stderr).not.toContain('warning');
    const widened = ok(await cli(['publish'], olive, project('1.1.0', true)));
    expect(widened.stdout).toMatch(/awaiting approval \(\w+\): latest stays at 1\.0\.0/);
    const waiting = JSON.parse(ok(await cli(['approvals', 'list', '--json'], adamKey)).stdout) as Array<{
      id: string;
      key: string;
    }>;
    const approvalId = waiting.find((entry) => entry.key === '@acme/helper@1.1.0')!.id;
    expect(ok(await cli(['approvals', 'approve', approvalId], adamKey)).stdout.trim()).toBe(
      '@acme/helper@1.1.0 approved; it is now latest',
    );
    // An organization with one owner and no admin is warned that nobody could approve.
    const lone = await admin<Created>('POST', '/admin/v1/organizations', {
      slug: 'initech',
      name: 'initech',
      accountType: 'team',
      owner: { email: 'ida@initech.test' },
    });
    const loneWarning = ok(await cli(['policy', 'set', '--approval', 'on'], lone.data.apiKey.key));
    expect(loneWarning.stderr).toContain(
      'warning: Nobody can approve: the organization has one owner and no admin',
    );

    // Billing: Olive sees her plan and usage on the console's Billing page.
    await admin('PUT', `/admin/v1/users/${oliveId}/password`, { password: PASSWORD });
    const owner = await openConsole(browser);
    await signIn(owner.page, OLIVE, PASSWORD);
    await expect.poll(() => pageHeading(owner.page).textContent()).toBe('Choose an organization');
    await owner.page.getByRole('button', { name: 'acme (owner)' }).click();
    await expect.poll(() => pageHeading(owner.page).textContent()).toBe('acme');
    await owner.page.goto(`${cadre.url}/billing`);
    await expect.poll(() => pageHeading(owner.page).textContent()).toBe('Billing');
    await expect.poll(() => owner.page.getByRole('heading', { name: 'Plans' }).count()).toBe(1);
    // The usage counts what the story made: two versions; Olive's, Adam's and the CLI's keys; one connection.
    await expect.poll(() => owner.page.locator('main').textContent()).toMatch(/Expert versions\s*2 of 50/);
    const billing = (await owner.page.locator('main').textContent()) ?? '';
    expect(billing).toMatch(/PlanFree/);
    expect(billing).toMatch(/API keys\s*3 of 5/);
    expect(billing).toMatch(/Connections\s*1 of 3/);
    expect(owner.problems).toEqual([]);

    // Restart on the same data: the CLI's stored key, Mia's console key and Olive's session still work.
    const port = new URL(cadre.url).port;
    await cadre.stop();
    // The same address: the CLI keeps its key per server URL.
    cadre = await startCadre({ ...serverEnv, PORT: port });
    const after = ok(await cli(['whoami']));
    expect(after.stdout).toContain(`Mia <${MIA}>, member of acme (acme)`);
    expect(ok(await cli(['whoami'], miaGlobexKey)).stdout).toContain(
      `Mia <${MIA}>, member of globex (globex)`,
    );
    await owner.page.goto(`${cadre.url}/members`);
    await expect.poll(() => pageHeading(owner.page).textContent()).toBe('Members');
    await expect.poll(() => owner.page.getByRole('row', { name: /Mia/ }).count()).toBe(1);
    expect(owner.problems).toEqual([]);
    await owner.close();
  });
});
