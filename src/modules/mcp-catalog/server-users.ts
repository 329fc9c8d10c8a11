import type { Database } from '../../db/client.js';
import { notFound } from '../../http/errors.js';
import { type Principal, requirePermission } from '../auth/index.js';
import * as repo from './mcp-catalog.repo.js';
import type { ServerUser, SkillEntry } from './mcp-catalog.schemas.js';
import type { CatalogEntryRef } from './mcp-catalog.service.js';

/** One skill of an Expert version and a package or endpoint it runs. */
export interface SkillUse {
  expert: string;
  version: string;
  skill: string;
  ref: CatalogEntryRef;
}

/**
 * The registry's side (a port the app wires to it, so the catalog knows no registry table): what the skills of
 * an organization's Experts run, as the publish-policy rule "skills come from the catalog" reads them.
 */
export interface ExpertSkillUses {
  /** The skills of the organization's latest Expert versions whose definition mentions one of `texts`. */
  ofOrganization(organizationId: string, texts: string[]): Promise<SkillUse[]>;
  /** The skills of one of the organization's Expert versions (none for another organization's). */
  ofExpert(organizationId: string, name: string, version: string): Promise<SkillUse[]>;
}

type Package = { registryType?: string; identifier?: string; version?: string };

const packageKey = (p: { registryType?: string; identifier?: string; version?: string }) =>
  JSON.stringify([p.registryType, p.identifier, p.version]);

/**
 * Links between the catalog and the Experts (docs/mcp-registry.md "Who uses a server"): a server's page lists
 * the Experts whose skills run one of its versions, an Expert's page links each skill to its catalog entry.
 * A skill matches exactly as the publish-policy rule matches it: a package's type, identifier and exact
 * version, or an SSE endpoint equal to a remote's URL.
 */
export function createServerUsers(deps: { database: Database; experts: ExpertSkillUses }) {
  const { db } = deps.database;

  async function usersOf(principal: Principal, name: string): Promise<ServerUser[]> {
    requirePermission(principal, 'mcp:read');
    const organizationId = principal.organizationId;
    const versions = (await repo.versionsOf(db, organizationId, name)).filter(
      (row) => row.status !== 'deleted' && repo.isListed(row),
    );
    if (versions.length === 0) throw notFound(`Server ${name}`);
    const packages = new Map<string, string[]>();
    const remotes = new Map<string, string[]>();
    for (const row of versions) {
      const server = row.server as { packages?: Package[]; remotes?: Array<{ url?: string }> };
      for (const entry of server.packages ?? [])
        packages.set(packageKey(entry), [...(packages.get(packageKey(entry)) ?? []), row.version]);
      for (const remote of server.remotes ?? [])
        if (remote.url) remotes.set(remote.url, [...(remotes.get(remote.url) ?? []), row.version]);
    }
    const texts = [
      ...new Set([
        ...versions.flatMap((row) =>
          ((row.server as { packages?: Package[] }).packages ?? []).flatMap((p) =>
            p.identifier ? [p.identifier] : [],
          ),
        ),
        ...remotes.keys(),
      ]),
    ];
    const users = new Map<string, ServerUser>();
    for (const use of await deps.experts.ofOrganization(organizationId, texts)) {
      const matched =
        use.ref.kind === 'package' ? packages.get(packageKey(use.ref)) : remotes.get(use.ref.url);
      if (!matched) continue;
      const key = `${use.expert}@${use.version}`;
      const user = users.get(key) ?? {
        name: use.expert,
        version: use.version,
        skills: [],
        serverVersions: [],
      };
      if (!user.skills.includes(use.skill)) user.skills.push(use.skill);
      for (const version of matched)
        if (!user.serverVersions.includes(version)) user.serverVersions.push(version);
      users.set(key, user);
    }
    return [...users.values()];
  }

  async function entriesOf(principal: Principal, expert: string, version: string): Promise<SkillEntry[]> {
    requirePermission(principal, 'mcp:read');
    const entries: SkillEntry[] = [];
    for (const use of await deps.experts.ofExpert(principal.organizationId, expert, version)) {
      const entry =
        use.ref.kind === 'package'
          ? {
              packages: [
                {
                  registryType: use.ref.registryType,
                  identifier: use.ref.identifier,
                  version: use.ref.version,
                },
              ],
            }
          : { remotes: [{ url: use.ref.url }] };
      const [server] = await repo.versionsListing(db, principal.organizationId, entry);
      if (server && !entries.some((known) => known.skill === use.skill))
        entries.push({ skill: use.skill, server });
    }
    return entries;
  }

  return { usersOf, entriesOf };
}
