import { CliError } from './errors.js';
import { type CliIo, paintFor, printLine } from './io.js';
import { cadrePathIn, pathInBaseUrl } from './wrong-server.js';

const DEFAULT_URL = 'http://127.0.0.1:3000';

/** Where the CLI finds Cadre, and which setting said so (named in "cannot reach" hints). */
export type ServiceUrl = { url: string; source: string };

export type UrlOptions = { url?: string; registry?: string };

export const URL_OPTION_HELP = `Cadre base URL (env CADRE_URL, default ${DEFAULT_URL})`;

/**
 * One URL setting for every command: `--url` / `CADRE_URL`. `--registry` / `CADRE_REGISTRY_URL` (the
 * registry commands' former names) still work for one release and print a deprecation warning.
 */
export function resolveServiceUrl(io: CliIo, options: UrlOptions): ServiceUrl {
  const deprecated = (name: string) =>
    printLine(io.stderr, `${paintFor(io).cyan('warning')}: ${name} is deprecated; use --url or CADRE_URL`);
  let chosen: ServiceUrl;
  if (options.url) chosen = { url: options.url, source: '--url' };
  else if (options.registry) {
    deprecated('--registry');
    chosen = { url: options.registry, source: '--registry' };
  } else if (io.env.CADRE_URL) chosen = { url: io.env.CADRE_URL, source: 'CADRE_URL' };
  else if (io.env.CADRE_REGISTRY_URL) {
    deprecated('CADRE_REGISTRY_URL');
    chosen = { url: io.env.CADRE_REGISTRY_URL, source: 'CADRE_REGISTRY_URL' };
  } else chosen = { url: DEFAULT_URL, source: 'the default' };
  let parsed: URL;
  try {
    parsed = new URL(chosen.url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(
      `the URL ${JSON.stringify(chosen.url)} (from ${chosen.source}) is not an http(s) URL`,
      1,
      'set --url or CADRE_URL to the server, e.g. http://127.0.0.1:3000',
    );
  }
  const path = cadrePathIn(parsed);
  if (path) throw pathInBaseUrl(chosen.url, chosen.source, parsed, path);
  return chosen;
}

/** What to check when nothing answers at the URL. */
export function unreachableHint(source: string): string {
  return (
    `is the server running (npm start in the Cadre clone; GET /healthz answers when it is)? ` +
    `The URL came from ${source}: pass --url or set CADRE_URL to where it listens`
  );
}
