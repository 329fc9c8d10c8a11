import type { Command } from 'commander';
import { tryParseExpertKey } from '../shared/expert/expert-definition.js';
import { callerKey } from './api-key-client.js';
import { CliError, EXIT_USER } from './errors.js';
import type { CliIo } from './io.js';
import { createRegistryClient, type RegistryClient } from './registry-client.js';
import { resolveServiceUrl, URL_OPTION_HELP, type UrlOptions, unreachableHint } from './service-url.js';

export type RegistryOptions = UrlOptions;

/** `--url`, and `--registry`: its deprecated former name (see resolveServiceUrl). */
export function withRegistryOption(command: Command): Command {
  return command
    .option('--url <url>', URL_OPTION_HELP)
    .option('--registry <url>', 'deprecated: use --url (env CADRE_REGISTRY_URL, deprecated: use CADRE_URL)');
}

/**
 * A client for the chosen registry. Writes need a key: CADRE_API_KEY, else the one `cadre login` stored for
 * this URL; reads are public (docs/registry.md).
 */
export function registryClient(io: CliIo, options: RegistryOptions, needsKey: boolean): RegistryClient {
  const { url, source } = resolveServiceUrl(io, options);
  const apiKey = callerKey(io, url)?.key;
  if (needsKey && !apiKey) {
    throw new CliError(
      'this command needs an API key',
      EXIT_USER,
      'run cadre login (or set CADRE_API_KEY to a key with experts:write)',
    );
  }
  return createRegistryClient({ baseUrl: url, apiKey, unreachableHint: unreachableHint(source) });
}

/** Rejects a malformed key before any request, with the same reason the registry would give. */
export function checkKey(key: string, options: { requireVersion?: boolean } = {}): void {
  const parsed = tryParseExpertKey(key);
  if (!parsed.ok) throw new CliError(`invalid Expert key "${key}": ${parsed.reason}`);
  if (options.requireVersion && parsed.key.version === undefined) {
    throw new CliError(
      `"${key}" names no version`,
      EXIT_USER,
      `name the exact version, e.g. ${parsed.key.name}@1.0.0 (see: cadre experts versions ${parsed.key.name})`,
    );
  }
}
