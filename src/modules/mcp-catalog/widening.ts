import type { ServerJson } from './server-json.schemas.js';

/** What a server version lets an IDE or a skill reach: its packages, its remote hosts, its secret variables. */
function reachOf(server: Partial<ServerJson>) {
  const packages = new Set<string>();
  const hosts = new Set<string>();
  const secrets = new Set<string>();
  for (const pkg of server.packages ?? []) {
    packages.add(`${pkg.registryType} package ${pkg.identifier}`);
    for (const variable of pkg.environmentVariables ?? []) {
      if (variable.isSecret) secrets.add(variable.name);
    }
  }
  for (const remote of server.remotes ?? []) {
    // A URL that does not parse (a template) is compared whole: a change to it is a new host.
    hosts.add(URL.canParse(remote.url) ? new URL(remote.url).host : remote.url);
  }
  return { packages, hosts, secrets };
}

/**
 * Why a new version widens access over `previous` (the latest listed version; none for a name's first), in
 * words: each package (registry type and identifier: a new version of the same package is not new), remote
 * host and secret environment variable the previous version did not have. Empty: it widens nothing. A first
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
  return reasons;
}
