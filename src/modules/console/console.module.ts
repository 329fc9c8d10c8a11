import type { App } from '../../http/route-kit.js';
import { consoleNotFoundPage, registerConsoleRoutes } from './console.routes.js';
import { DEFAULT_CONSOLE_DIR, loadConsoleShell } from './console-assets.js';

export interface ConsoleModuleDeps {
  /** The built console (default: dist/console). */
  dir?: string | undefined;
}

/** The web console: its pages and assets (console face) and the root's not-found page for browsers. */
export function createConsoleModule({ dir }: ConsoleModuleDeps) {
  const shell = loadConsoleShell(dir ?? DEFAULT_CONSOLE_DIR);
  return {
    /** Answers a browser's page request no route matched with the console (it shows its own 404). */
    notFoundPage: consoleNotFoundPage(shell),
    registerRoutes(app: App) {
      registerConsoleRoutes(app, shell);
    },
  };
}
