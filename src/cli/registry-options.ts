import type { Command } from 'commander';
import { tryParseExpertKey } from '../modules/registry/expert-definition.js';
import { CliError, EXIT_USER } from './errors.js';
import type { CliIo } from './io.js';
import { createRegistryClient, type RegistryClient } from './registry-client.js';

export const DEFAULT_REGISTRY_URL = 'http://127.0.0.1:3000';

export type RegistryOptions = { registry?: string };

export function withRegistryOption(command: Command): Command {
  return command.option(
    '--registry <url>',
    `registry base URL (env CADRE_REGISTRY_URL, default ${DEFAULT_REGISTRY_URL})`,
  );
}

/** A client for the chosen registry. Writes need CADRE_API_KEY; reads are public (spec). */
export function registryClient(io: CliIo, options: RegistryOptions, needsKey: boolean): RegistryClient {
  const baseUrl = options.registry ?? io.env.CADRE_REGISTRY_URL ?? DEFAULT_REGISTRY_URL;
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(`registry URL ${JSON.stringify(baseUrl)} is not an http(s) URL`);
  }
  const apiKey = io.env.CADRE_API_KEY || undefined;
  if (needsKey && !apiKey) {
    throw new CliError(
      'this command needs an API key',
      EXIT_USER,
      'set CADRE_API_KEY to a key with experts:write',
    );
  }
  return createRegistryClient({ baseUrl, apiKey });
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
