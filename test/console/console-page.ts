import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { PASSWORD } from '../support/session.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SCREENSHOTS = join(import.meta.dirname, 'screenshots');

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 360, height: 740 };

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Console errors and CSP violations the page reported: a console test ends with none. */
  problems: string[];
  close(): Promise<void>;
}

/** A fresh browser profile (no cookies) on the console, recording anything the page complains about. */
export async function openConsole(
  browser: Browser,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? DESKTOP,
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // A failed API answer the page handles (the 401 of a signed-out session probe, a 4xx it explains) is
    // logged by Chromium as a resource error; those are expected. Anything else is a problem.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      problems.push(message.text());
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { context, page, problems, close: () => context.close() };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** The serious and critical violations axe-core finds in the page, each named with its nodes. */
export async function axeFindings(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) does not apply to it.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** Runs axe-core in the page; serious and critical violations fail the test, named with their nodes. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  expect(await axeFindings(page), `axe on ${what}`).toEqual([]);
}

/** Saves the page at desktop and phone width (screenshots/<name>-desktop.png, -phone.png). */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const viewport = page.viewportSize() ?? DESKTOP;
  for (const [label, size] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${label}.png`), fullPage: true });
    if (label === 'phone') {
      // Nothing may stick out sideways at 360 px: the page scrolls only vertically.
      const overflow = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: Element } }).document
          .documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      expect(overflow, `${name} is wider than a 360 px phone`).toBeLessThanOrEqual(0);
    }
  }
  await page.setViewportSize(viewport);
}

interface Element {
  scrollWidth: number;
  clientWidth: number;
}

/** A page's main heading: what a person reads first, and what a test waits on after a navigation. */
export const pageHeading = (page: Page) => page.locator('main h1').first();

/** Signs in through the console's own form (the shared test password), asking to land on `next`. */
export async function signInAs(page: Page, baseUrl: string, email: string, next: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
