import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where `npm run build` writes the console (console/vite.config.ts), from src/ and from dist/ alike. */
export const DEFAULT_CONSOLE_DIR = join(import.meta.dirname, '../../../dist/console');

/** The console's page shell, read once at start: every console path answers these same bytes. */
export interface ConsoleShell {
  dir: string;
  html: string;
  etag: string;
  favicon: Buffer | undefined;
}

export function loadConsoleShell(dir: string): ConsoleShell | undefined {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const html = readFileSync(index, 'utf8');
  const favicon = join(dir, 'favicon.svg');
  return {
    dir,
    html,
    etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`,
    favicon: existsSync(favicon) ? readFileSync(favicon) : undefined,
  };
}

/**
 * The console page's Content-Security-Policy: scripts, styles and data only from Cadre's own origin, no
 * inline script or style, never framed (docs/console.md).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
