import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyEntry, parseKeyRing } from '../../src/lib/key-ring.js';
import { parseOutboundAllowance } from '../../src/lib/outbound/address-policy.js';
import { CONSOLE_PAGES, type ConsolePath } from '../../src/modules/console/console-pages.js';
import { npmServer, publish } from '../mcp/helpers.js';
import { expertBody, published } from '../registry/helpers.js';
import { launchChromium, type TestBrowser } from '../support/browser.js';
import { createOrganization, type TestOrganization } from '../support/fixtures.js';
import { startServer, type TestServer } from '../support/server.js';
import { setPassword } from '../support/session.js';
import { axeFindings, openConsole, pageHeading, signInAs } from './console-page.js';

/**
 * Every page of the console (CONSOLE_PAGES, the router's own list) as each person who can open it (signed out,
 * owner, admin, member), at 1280×800 and 390×844, light and dark: no serious or critical axe violation, nothing
 * scrolling sideways, and a visible focus indicator (an outline or ring that stands out 3:1 from the page) on
 * the first four Tab stops after the page's heading. One browser and one server; per person one page, signed in once, each page
 * loaded once and checked in the four sizes and schemes by resizing and emulating the colour scheme. Every
 * finding is collected (with a screenshot, screenshots/a11y-*.png) and the test fails listing them all; the
 * pages are also saved at 1280 px light and 390 px dark for a person to judge (`judged`).
 */

const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;
const SCREENSHOTS = join(import.meta.dirname, 'screenshots');

let server: TestServer;
let chromium: TestBrowser | undefined;
let browser: Browser;
let org: TestOrganization;
const people = { owner: '', admin: '', member: '' };
/** A concrete address for each page whose path has a parameter. */
const concrete: Partial<Record<ConsolePath, string>> = {};

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
  server = await startServer({
    keyRing: parseKeyRing(generateKeyEntry('k1')),
    // A webhook endpoint on loopback (never called: no event is sent), as an operator allows for development.
    webhooks: { allowedPrivateHosts: parseOutboundAllowance(['127.0.0.1']).allowance },
  });
  org = await createOrganization(server, 'team');
  await setPassword(server, org.ownerId);
  people.owner = `owner@${org.slug}.test`;
  for (const role of ['admin', 'member'] as const) {
    const email = `${role}@${org.slug}.test`;
    const added = await server.admin<{ data: { user: { id: string } } }>(
      'POST',
      `/admin/v1/organizations/${org.id}/members`,
      { email, role },
    );
    expect(added.status, added.text).toBe(201);
    await setPassword(server, added.body.data.user.id);
    people[role] = email;
  }
  const expert = `@${org.slug}/writer`;
  await published(server, org.ownerKey, expertBody(expert));
  concrete['/experts/*'] = `/experts/${expert}`;
  // A catalog server with two versions: its page shows the install snippet and (owners, admins) status actions.
  for (const version of ['1.0.0', '1.1.0'])
    await publish(server, org, npmServer('com.example/files', version));
  concrete['/mcp-catalog/servers/*'] = '/mcp-catalog/servers/com.example/files';
  const endpoint = await server.request<{ data: { endpoint: { id: string } } }>(
    'POST',
    '/api/v1/webhook-endpoints',
    { key: org.ownerKey, body: { url: 'http://127.0.0.1:9/hook', eventTypes: ['member.joined'] } },
  );
  expect(endpoint.status, endpoint.text).toBe(201);
  concrete['/developers/webhooks/:endpointId'] = `/developers/webhooks/${endpoint.body.data.endpoint.id}`;
  const invited = await server.request<{ data: { token: string } }>(
    'POST',
    `/api/v1/organizations/${org.slug}/invitations`,
    { key: org.ownerKey, body: { email: `invitee@${org.slug}.test`, role: 'member' } },
  );
  expect(invited.status, invited.text).toBe(201);
  concrete['/invitations/:token'] = `/invitations/${invited.body.data.token}`;
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
});

const addressOf = (path: ConsolePath) => concrete[path] ?? path;

/** A page has settled when its heading is there and nothing says "Loading". */
async function settled(page: Page) {
  await expect.poll(() => pageHeading(page).count()).toBe(1);
  await expect
    .poll(() =>
      page
        .getByRole('status')
        .filter({ hasText: /^Loading$/ })
        .count(),
    )
    .toBe(0);
}

/**
 * Tabs through the first stops after the page's heading and returns those whose focus cannot be seen: no outline or ring,
 * or one under 3:1 against the page's background (WCAG 2.2, "Focus Appearance" asks for that contrast).
 */
async function invisibleFocus(page: Page, stops: number): Promise<string[]> {
  // From the page's heading: the stops of the page's own content, not only the header's.
  await pageHeading(page).click();
  const missing: string[] = [];
  for (let stop = 0; stop < stops; stop++) {
    await page.keyboard.press('Tab');
    const problem = await page.evaluate(() => {
      type Styled = {
        outlineStyle: string;
        outlineWidth: string;
        outlineColor: string;
        boxShadow: string;
        backgroundColor: string;
      };
      const win = globalThis as unknown as {
        document: { activeElement: { tagName: string; textContent: string | null } | null; body: unknown };
        getComputedStyle(element: unknown): Styled;
      };
      const active = win.document.activeElement;
      if (!active || active === win.document.body) return null;
      const style = win.getComputedStyle(active);
      const name = `${active.tagName.toLowerCase()} "${(active.textContent ?? '').trim().slice(0, 30)}"`;
      const luminance = (color: string) => {
        const [r = 0, g = 0, b = 0] = (color.match(/[\d.]+/g) ?? []).map(Number).map((c) => {
          const s = c / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const background = win.getComputedStyle(win.document.body).backgroundColor;
      const outlined = style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) >= 1;
      if (!outlined) return style.boxShadow === 'none' ? `${name}: no outline or ring` : null;
      const [light, dark] = [luminance(style.outlineColor), luminance(background)].sort((a, b) => b - a);
      const contrast = ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05);
      return contrast < 3
        ? `${name}: outline ${style.outlineColor} is ${contrast.toFixed(2)}:1 on ${background}`
        : null;
    });
    if (problem) missing.push(problem);
  }
  return missing;
}

/**
 * The combinations saved as screenshots for a person to look at even when nothing is found: every page at
 * 1280 px light and 390 px dark, signed out, as owner and as member (an admin's pages are the owner's).
 */
const judged = (person: 'signed out' | keyof typeof people, width: number, scheme: string) =>
  person !== 'admin' && ((width === 1280 && scheme === 'light') || (width === 390 && scheme === 'dark'));

/** Checks one person's pages in every size and scheme; returns the findings. */
async function checkPages(
  person: 'signed out' | keyof typeof people,
): Promise<{ findings: string[]; pages: number }> {
  const findings: string[] = [];
  const { page, problems, close } = await openConsole(browser);
  if (person !== 'signed out') {
    await signInAs(page, server.url, people[person], '/home');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/home');
  }
  const checked = new Set<string>();
  for (const path of CONSOLE_PAGES) {
    await page.goto(`${server.url}${addressOf(path)}`);
    await settled(page);
    // A page that sends this person elsewhere (signed out to sign-in, /developers to its first page) is
    // checked where it lands, once.
    const landed = new URL(page.url()).pathname;
    if (checked.has(landed)) continue;
    checked.add(landed);
    for (const size of SIZES) {
      for (const colorScheme of SCHEMES) {
        await page.setViewportSize(size);
        await page.emulateMedia({ colorScheme });
        const what = `${landed} ${person} ${size.width} ${colorScheme}`;
        const found = [
          ...(await axeFindings(page)),
          ...(await invisibleFocus(page, 4)).map((problem) => `focus: ${problem}`),
        ];
        const sideways = await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
        if (sideways > 0) found.push(`scrolls sideways by ${sideways} px`);
        if (found.length > 0 || judged(person, size.width, colorScheme)) {
          mkdirSync(SCREENSHOTS, { recursive: true });
          const file = `a11y-${person.replace(' ', '-')}${landed.replaceAll('/', '-')}-${size.width}-${colorScheme}.png`;
          await page.screenshot({ path: join(SCREENSHOTS, file), fullPage: true });
          findings.push(...found.map((finding) => `${what}: ${finding}`));
        }
      }
    }
  }
  findings.push(...problems.map((problem) => `${person}: ${problem}`));
  await close();
  return { findings, pages: checked.size };
}

describe('every console page, as everyone, at both sizes, light and dark', () => {
  it.each(['signed out', 'owner', 'admin', 'member'] as const)(
    'as %s: axe, no sideways scroll, visible focus',
    {
      timeout: 300_000,
    },
    async (person) => {
      const started = Date.now();
      const { findings, pages } = await checkPages(person);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.info(`accessibility matrix as ${person}: ${pages} pages × 4 in ${seconds} s`);
      // Signed out, the organization's pages all land on sign-in; signed in, nearly every page is its own.
      expect(pages).toBeGreaterThan(person === 'signed out' ? 4 : CONSOLE_PAGES.length - 3);
      expect(findings).toEqual([]);
    },
  );
});
