/**
 * The publish-policy rule "Experts' skills come from the catalog" (docs/registry.md "Skills from the MCP
 * catalog"): every npx/uvx package a stdio skill runs (its identifier and exact version) and every SSE skill's
 * endpoint must be an active server version of the organization's MCP catalog. Here: what a definition asks
 * the catalog about, and the violations for what it does not list; the catalog itself answers the lookup.
 */
import type { Executor } from '../../db/client.js';
import { type Ecosystem, type ExpertDefinition, launchOf, type Skills } from '../registry/index.js';
import type { PolicyViolation } from './publish-policy.js';

/** A package or an endpoint one skill uses, as a catalog's server.json lists it. */
export type CatalogRef = { path: string } & (
  | { kind: 'package'; registryType: Ecosystem; identifier: string; version: string }
  | { kind: 'remote'; url: string }
);

/** The catalog's side: the refs no active server version of the organization lists (read in `executor`). */
export interface CatalogLookup {
  missingFromCatalog(executor: Executor, organizationId: string, refs: CatalogRef[]): Promise<CatalogRef[]>;
}

const RULE = 'skillsFromCatalog';

/** `name@1.2.3` (npm) or `name==1.2.3` / `name@1.2.3` (PyPI) split into name and version; extras dropped. */
function splitSpec(ecosystem: Ecosystem, spec: string): { identifier: string; version?: string } {
  if (ecosystem === 'npm') {
    const at = spec.lastIndexOf('@');
    return at > 0 ? { identifier: spec.slice(0, at), version: spec.slice(at + 1) } : { identifier: spec };
  }
  const pinned = /^(.+?)\s*(?:==|@)\s*(.+)$/.exec(spec.trim());
  const [name, version] = pinned ? [pinned[1]!, pinned[2]!] : [spec.trim(), undefined];
  const identifier = name.replace(/\[.*\]$/, '');
  return version === undefined ? { identifier } : { identifier, version };
}

/**
 * What `definition`'s skills ask of the catalog, and what cannot be in any catalog (a stdio command that runs
 * no npx/uvx package, a package with no exact version). `exempt` names the runtime's own base skills.
 */
export function catalogRefs(
  definition: Pick<ExpertDefinition, 'skills'>,
  exempt: (name: string, skill: Skills[string]) => boolean,
): { refs: CatalogRef[]; violations: PolicyViolation[] } {
  const refs: CatalogRef[] = [];
  const violations: PolicyViolation[] = [];
  for (const [name, skill] of Object.entries(definition.skills)) {
    const path = `skills.${name}`;
    if (skill.type === 'mcpSseSkill')
      refs.push({ path: `${path}.endpoint`, kind: 'remote', url: skill.endpoint });
    if (skill.type !== 'mcpStdioSkill' || exempt(name, skill)) continue;
    const launch = launchOf(skill);
    if (!launch || launch.packages.length === 0) {
      violations.push({
        rule: RULE,
        path: `${path}.command`,
        message: `"${skill.command}" runs no npx or uvx package, so no catalog server can list it`,
      });
      continue;
    }
    for (const spec of launch.packages) {
      const { identifier, version } = splitSpec(launch.ecosystem, spec);
      if (version === undefined) {
        violations.push({
          rule: RULE,
          path,
          message: `"${spec}" names no exact version, and the catalog lists exact versions only`,
        });
      } else refs.push({ path, kind: 'package', registryType: launch.ecosystem, identifier, version });
    }
  }
  return { refs, violations };
}

/** The violation of a ref the catalog does not list: it says what server to add. */
export function notInCatalog(ref: CatalogRef): PolicyViolation {
  const message =
    ref.kind === 'package'
      ? `${ref.registryType} package ${ref.identifier} ${ref.version} is not in an active server version of the organization's MCP catalog: publish a server whose packages list it (cadre mcp publish)`
      : `endpoint ${ref.url} is not in an active server version of the organization's MCP catalog: publish a server whose remotes list it (cadre mcp publish)`;
  return { rule: RULE, path: ref.path, message };
}
