import type { ServerJson } from './server-json.schemas.js';

type Inputs = ReadonlyArray<{ name: string; isSecret?: boolean | undefined }> | undefined;

/** The secret ones of a list of environment variables or headers. */
function addSecrets(into: Set<string>, inputs: Inputs): void {
  for (const input of inputs ?? []) if (input.isSecret) into.add(input.name);
}

/**
 * What a server version lets an IDE or a skill reach: its packages, its remote hosts, and the secrets it asks
 * people for (environment variables, and headers of remotes and of HTTP transports: an API key in a header is
 * as much a credential handed over as one in the environment).
 */
function reachOf(server: Partial<ServerJson>) {
  const packages = new Set<string>();
  const hosts = new Set<string>();
  const secrets = new Set<string>();
  const secretHeaders = new Set<string>();
  for (const pkg of server.packages ?? []) {
    packages.add(`${pkg.registryType} package ${pkg.identifier}`);
    addSecrets(secrets, pkg.environmentVariables);
    if (pkg.transport.type !== 'stdio') addSecrets(secretHeaders, pkg.transport.headers);
  }
  for (const remote of server.remotes ?? []) {
    // A URL that does not parse (a template) is compared whole: a change to it is a new host.
    hosts.add(URL.canParse(remote.url) ? new URL(remote.url).host : remote.url);
    addSecrets(secretHeaders, remote.headers);
  }
  return { packages, hosts, secrets, secretHeaders };
}

/**
 * Why a new version widens access over `previous` (the latest listed version; none for a name's first), in
 * words: each package (registry type and identifier: a new version of the same package is not new), remote
 * host, secret environment variable and secret header the previous version did not have. Empty: it widens nothing. A first
 * version widens by everything it reaches: adding a server to the catalog is what lets IDEs and skills run it.
 */
export function wideningReasons(server: ServerJson, previous: Partial<ServerJson> | undefined): string[] {
  const before = reachOf(previous ?? {});
  const after = reachOf(server);
  const reasons: string[] = [];
  for (const pkg of after.packages) if (!before.packages.has(pkg)) reasons.push(`new ${pkg}`);
  for (const host of after.hosts) if (!before.hosts.has(host)) reasons.push(`new remote host ${host}`);
  for (const name of after.secrets)
    if (!before.secrets.has(name)) reasons.push(`new secret variable ${name}`);
  for (const name of after.secretHeaders)
    if (!before.secretHeaders.has(name)) reasons.push(`new secret header ${name}`);
  return reasons;
}
