/**
 * An organization's publish policy (docs/registry.md "Publish policies"): which skill commands its Experts may
 * run, whether npx/uvx packages must be pinned to an exact version, which hosts an SSE skill may reach, and
 * whether a version that widens access over `latest` waits for a second owner's or admin's approval before it
 * takes `latest`. Pure: the registry checks a publish with it, and the rules are tested here one by one.
 */
import { z } from 'zod';
import {
  type Ecosystem,
  type ExpertDefinition,
  launchOf,
  type McpStdioSkill,
  type Skills,
} from '../registry/index.js';

/** A command as a skill writes it: a program name or path, no whitespace. */
const commandName = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[^\s]+$/, 'a command has no whitespace');

/** A host name, lowercase, or `*.` and a domain (every subdomain of it, not the domain itself). */
const hostPattern = z
  .string()
  .min(1)
  .max(253)
  .regex(
    /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/,
    'a lowercase host name (api.example.com) or *. and a domain (*.example.com), without scheme, port or path',
  );

const unique = <T>(values: T[]) => new Set(values).size === values.length;

export const publishPolicyRules = {
  /** null: any command (what the specification's field allows). */
  allowedCommands: z
    .array(commandName)
    .min(1, 'at least one command; null allows any')
    .max(32)
    .refine(unique, 'commands must be unique')
    .nullable(),
  requirePinnedVersions: z.boolean(),
  /** null: any host. */
  allowedSseHosts: z
    .array(hostPattern)
    .min(1, 'at least one host; null allows any')
    .max(64)
    .refine(unique, 'hosts must be unique')
    .nullable(),
  approvalRequiredForWidening: z.boolean(),
  /** Every MCP skill's package and SSE endpoint must be an active server version of the MCP catalog. */
  skillsFromCatalog: z.boolean(),
};

const policyShape = z.object(publishPolicyRules).strict();
export type PublishPolicy = z.infer<typeof policyShape>;

/** What an organization without a policy of its own has: every rule off (what Cadre did before policies). */
export const OPEN_POLICY: PublishPolicy = {
  allowedCommands: null,
  requirePinnedVersions: false,
  allowedSseHosts: null,
  approvalRequiredForWidening: false,
  skillsFromCatalog: false,
};

/** The one-step preset: the commands the platform the specification comes from accepts. */
const RECOMMENDED_COMMANDS = ['npx', 'uvx'];
export const PRESETS = { recommended: { allowedCommands: RECOMMENDED_COMMANDS } } as const;

/**
 * A change of policy: any rules (each replaces its value), optionally after a preset (the rules named win
 * over the preset's). The operator's default for new organizations (CADRE_PUBLISH_POLICY_DEFAULT) has the
 * same shape.
 */
export const publishPolicyChange = z
  .object({
    preset: z.enum(['recommended']).optional(),
    allowedCommands: publishPolicyRules.allowedCommands.optional(),
    requirePinnedVersions: publishPolicyRules.requirePinnedVersions.optional(),
    allowedSseHosts: publishPolicyRules.allowedSseHosts.optional(),
    approvalRequiredForWidening: publishPolicyRules.approvalRequiredForWidening.optional(),
    skillsFromCatalog: publishPolicyRules.skillsFromCatalog.optional(),
  })
  .strict()
  .refine(
    (change) => Object.values(change).some((value) => value !== undefined),
    'name at least one rule or a preset',
  );
export type PublishPolicyChange = z.infer<typeof publishPolicyChange>;

/** `policy` with `change` applied: the preset first, then each rule the change names. */
export function applyPolicyChange(policy: PublishPolicy, change: PublishPolicyChange): PublishPolicy {
  const { preset, ...rules } = change;
  const next: PublishPolicy = { ...policy, ...(preset ? PRESETS[preset] : {}) };
  for (const [key, value] of Object.entries(rules)) {
    if (value !== undefined) (next as Record<string, unknown>)[key] = value;
  }
  return next;
}

/** One broken rule: `rule` names the policy field, `path` the definition's field, `message` says what. */
export interface PolicyViolation {
  rule: keyof PublishPolicy;
  path: string;
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Pinned versions (docs/registry.md "Pinned package versions")

/** npm: an exact SemVer version, nothing else (`^1.2.3`, `1.x`, `1.2`, `latest`, `*` are not). */
const NPM_EXACT = /^\d+\.\d+\.\d+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;
/** PyPI: an exact PEP 440 release (`1.2`, `1.2.3`, `2.0.0rc1`, `1.0.post1`), no wildcard or local part. */
const PEP440_EXACT = /^(\d+!)?\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$/;
/** An npm package name, scoped or not (without a version). */
const NPM_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;
/** A PyPI project name with optional extras (without a version). */
const PYPI_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(\[[A-Za-z0-9._,\s-]+\])?$/;

/** Why `spec` (an npx package spec) is not pinned, or undefined when it is `name@<exact version>`. */
export function npmSpecProblem(spec: string): string | undefined {
  const at = spec.lastIndexOf('@');
  const name = at > 0 ? spec.slice(0, at) : spec;
  const version = at > 0 ? spec.slice(at + 1) : undefined;
  if (!NPM_NAME.test(name)) return `"${spec}" is not a registry package (a URL, path, git or alias spec)`;
  if (version === undefined || version === '') return `"${spec}" names no version`;
  if (!NPM_EXACT.test(version)) return `"${spec}" names "${version}", not an exact version`;
  return undefined;
}

/** Why `spec` (a uvx package spec) is not pinned, or undefined when it is `name==<exact>` or `name@<exact>`. */
export function pypiSpecProblem(spec: string): string | undefined {
  const text = spec.trim();
  const pinned = /^(.+?)\s*(==|@)\s*([^=<>!~@\s,;]+)$/.exec(text);
  if (!pinned) {
    if (/[<>!~=,;]/.test(text)) return `"${spec}" names a range, not an exact version`;
    if (!PYPI_NAME.test(text)) return `"${spec}" is not a registry package (a URL, path or git spec)`;
    return `"${spec}" names no version`;
  }
  const [, name, , version] = pinned as unknown as [string, string, string, string];
  if (!PYPI_NAME.test(name)) return `"${spec}" is not a registry package (a URL, path or git spec)`;
  if (!PEP440_EXACT.test(version)) return `"${spec}" names "${version}", not an exact version`;
  return undefined;
}

/**
 * Base skills the runtime provides itself (its own package, chosen by the runtime's version): exempt from the
 * pinned rule, since pinning them would pin the runtime's tools to a version the runtime may not have.
 */
const RUNTIME_BASE_PACKAGES = new Set(['@cadre/base', '@perstack/base']);

export function isRuntimeBase(skillName: string, skill: Skills[string], baseSkillNames: readonly string[]) {
  return (
    baseSkillNames.includes(skillName) &&
    skill.type === 'mcpStdioSkill' &&
    skill.command === 'npx' &&
    skill.packageName !== undefined &&
    RUNTIME_BASE_PACKAGES.has(skill.packageName) &&
    (skill.args ?? []).length === 0
  );
}

/** The host name of an endpoint (no port), lowercase; undefined when it does not parse. */
function endpointHost(endpoint: string): string | undefined {
  try {
    return new URL(endpoint).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Does `host` match a pattern: equal, or `*.domain` and a subdomain of it (the domain itself not). */
export function hostAllowed(host: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) =>
    pattern.startsWith('*.')
      ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1
      : host === pattern,
  );
}

const EXAMPLE_PIN: Record<Ecosystem, string> = { npm: 'pkg@1.2.3', pypi: 'pkg==1.2.3' };
const REGISTRY_NAME: Record<Ecosystem, string> = { npm: "npm's registry", pypi: 'PyPI' };

/**
 * What a launcher skill's command line breaks (docs/registry.md "What a skill runs"). Under a policy that
 * limits commands or pins versions, the launcher must run its package from the default registry and nothing
 * else: an option that runs a command line of its own, chooses another registry, or that Cadre cannot read
 * (it might do either) is refused, under the pinned rule when it is on, else under allowedCommands. With
 * pinned versions, every package the command line names (and packageName) names one exact version.
 */
function launchViolations(policy: PublishPolicy, skill: McpStdioSkill, at: string): PolicyViolation[] {
  const launch = launchOf(skill);
  if (!launch) return [];
  const violations: PolicyViolation[] = [];
  const { command } = skill;
  const guarded = policy.requirePinnedVersions || policy.allowedCommands !== null;
  if (guarded) {
    const rule = policy.requirePinnedVersions ? 'requirePinnedVersions' : 'allowedCommands';
    const refuse = (message: string) => violations.push({ rule, path: `${at}.args`, message });
    for (const option of launch.shellCommands) {
      refuse(`"${option}" makes ${command} run a command line of its own, not its package`);
    }
    for (const option of launch.sources) {
      refuse(`"${option}" takes packages from another registry than ${REGISTRY_NAME[launch.ecosystem]}`);
    }
    for (const option of launch.unknownOptions) {
      refuse(
        `"${option}" is not an option of ${command} Cadre can check (it could choose another registry or command); remove it`,
      );
    }
  }
  if (!policy.requirePinnedVersions) return violations;
  const pin = EXAMPLE_PIN[launch.ecosystem];
  if (launch.packages.length === 0) {
    violations.push({
      rule: 'requirePinnedVersions',
      path: at,
      message: `names no package for ${command} (give packageName, e.g. "${pin}")`,
    });
  }
  for (const spec of launch.packages) {
    const problem = launch.ecosystem === 'npm' ? npmSpecProblem(spec) : pypiSpecProblem(spec);
    if (problem) {
      violations.push({
        rule: 'requirePinnedVersions',
        path:
          spec === skill.packageName && !(skill.args ?? []).includes(spec)
            ? `${at}.packageName`
            : `${at}.args`,
        message: `${problem}; pin an exact version (${pin})`,
      });
    }
  }
  return violations;
}

/**
 * Every rule of `policy` that `definition` breaks, all at once, in skill order (the approval rule is not
 * checked here: a widening version is published and waits; see registry.service.ts).
 */
export function policyViolations(
  policy: PublishPolicy,
  definition: Pick<ExpertDefinition, 'skills'>,
  baseSkillNames: readonly string[],
): PolicyViolation[] {
  const violations: PolicyViolation[] = [];
  for (const [name, skill] of Object.entries(definition.skills)) {
    const at = `skills.${name}`;
    if (skill.type === 'mcpStdioSkill') {
      if (policy.allowedCommands && !policy.allowedCommands.includes(skill.command)) {
        violations.push({
          rule: 'allowedCommands',
          path: `${at}.command`,
          message: `"${skill.command}" is not an allowed command (allowed: ${policy.allowedCommands.join(', ')})`,
        });
      }
      if (!isRuntimeBase(name, skill, baseSkillNames))
        violations.push(...launchViolations(policy, skill, at));
    } else if (skill.type === 'mcpSseSkill' && policy.allowedSseHosts) {
      const host = endpointHost(skill.endpoint);
      if (host === undefined || !hostAllowed(host, policy.allowedSseHosts)) {
        violations.push({
          rule: 'allowedSseHosts',
          path: `${at}.endpoint`,
          message: `host "${host ?? skill.endpoint}" is not an allowed SSE host (allowed: ${policy.allowedSseHosts.join(', ')})`,
        });
      }
    }
  }
  return violations;
}
