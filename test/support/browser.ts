import { type Browser, chromium } from 'playwright-core';
import { findPrograms, missingProgramMessage } from '../../scripts/test-programs.mjs';
import { track } from './leftovers.js';

/** Debian's chromium (apt-get install chromium); nothing is downloaded. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * A real Chromium of this test's own. Launched as a server so its process is known and recorded
 * (support/leftovers.ts): a test that fails before closing it cannot leave it running. Fails at once when
 * Chromium is not installed.
 */
export async function launchChromium(): Promise<TestBrowser> {
  const executablePath = findPrograms().chromium;
  if (!executablePath) throw new Error(missingProgramMessage('chromium'));
  const server = await chromium.launchServer({ executablePath, args: CHROMIUM_ARGS });
  const pid = server.process().pid;
  const untrack = pid ? track({ kind: 'process', pid, command: 'chromium' }) : () => undefined;
  const close = async () => {
    await server.close().catch(() => server.kill());
    untrack();
  };
  try {
    return { browser: await chromium.connect(server.wsEndpoint()), close };
  } catch (error) {
    await close();
    throw error;
  }
}
