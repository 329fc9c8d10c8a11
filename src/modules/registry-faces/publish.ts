import type { Tx } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ApiError, anotherOrganizations } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { wellFormedDeep } from '../../lib/well-formed.js';
import { type Principal, requirePermission } from '../auth/index.js';
import {
  baseSkillProblem,
  type ExpertDefinition,
  type ExpertRecord,
  formatExpertKey,
  type ParsedExpertKey,
  parseExpertKey,
  repo,
  runsOnV1_0,
  type Skills,
} from '../registry/index.js';
import {
  catalogRefs,
  checkDelegation,
  type DelegationProblem,
  diffDefinitions,
  integrityOf,
  isRuntimeBase,
  notInCatalog,
  type PolicyViolation,
  policies,
  policyViolations,
} from '../supply-chain/index.js';
import type { Organization } from '../tenancy/index.js';
import { versionOrder } from './expert-key.js';
import { presentExpert } from './registry.presenters.js';
import type { RegistryExpert } from './registry.schemas.js';
import { badRequest, type RegistryContext, takenDown } from './registry-context.js';

/** A publish the organization's policy refuses: every broken rule at once (docs/registry.md "Publish policies"). */
const policyRefused = (violations: PolicyViolation[]) =>
  new ApiError(
    'publish_policy_violation',
    `The organization's publish policy refuses this version (${violations.length} ${violations.length === 1 ? 'rule' : 'rules'} broken)`,
    violations.map((v) => ({ path: v.path, message: `${v.message} [${v.rule}]` })),
  );

/** Why a version awaits approval: what widens access over `latest` (or that nothing holds `latest`). */
export interface ApprovalGate {
  previousVersion: string | null;
  reasons: string[];
}

const delegationText = (problem: DelegationProblem) =>
  problem.kind === 'cycle'
    ? `closes a delegation cycle: ${problem.path.join(' → ')}`
    : `starts a delegation chain more than ${problem.limit} levels deep (at least ${problem.depth}); ` +
      `the limit is ${problem.limit}`;

/** Publishing a new version: the naming rule, the publish policy, the plan's limit, delegates and approval. */
export function createPublish(ctx: RegistryContext) {
  const { deps, baseSkillNames, write, audit } = ctx;

  /** What the rule "skills come from the catalog" refuses in `definition` (catalog-rule.ts). */
  async function catalogViolations(tx: Tx, principal: Principal, definition: ExpertDefinition) {
    const exempt = (name: string, skill: Skills[string]) => isRuntimeBase(name, skill, baseSkillNames);
    const { refs, violations } = catalogRefs(definition, exempt);
    const missing = deps.catalog
      ? await deps.catalog.missingFromCatalog(tx, principal.organizationId, refs)
      : refs;
    return [...violations, ...missing.map(notInCatalog)];
  }

  /** The naming rule by account type; answers the organization (its slug and createdAt are the owner). */
  async function checkNamingRule(principal: Principal, name: string): Promise<Organization> {
    const organization = await deps.tenancy.getOrganization(principal.organizationId);
    const { scope } = parseExpertKey(name);
    if (organization.accountType === 'team') {
      if (scope === undefined) {
        throw badRequest(`Team accounts publish scoped names only: use "@${organization.slug}/${name}"`);
      }
      if (scope !== organization.slug) {
        throw badRequest(`The scope of "${name}" must be your organization's slug "@${organization.slug}"`);
      }
    } else if (scope !== undefined) {
      throw badRequest('Personal and Personal Plus accounts publish unscoped names only');
    }
    return organization;
  }

  /** Every delegate must name a published Expert other than this one (any version of its own name). */
  function parseDelegates(name: string, delegates: string[]): ParsedExpertKey[] {
    return delegates.map((text) => {
      const key = parseExpertKey(text);
      if (key.name === name) throw badRequest(`An Expert cannot delegate to itself (${text})`);
      return key;
    });
  }

  /**
   * The base skill is checked here, not by the route's schema: its accepted names are the operator's. Refused
   * as the schema refuses (validation_failed at `skills`), before any permission check, as a schema would be.
   */
  function assertBaseSkill(definition: ExpertDefinition): void {
    const problem = baseSkillProblem(definition.skills, baseSkillNames);
    if (!problem) return;
    const detail = { path: ['skills', ...problem.path].join('.'), message: problem.message };
    throw new ApiError('validation_failed', 'Request validation failed', [detail]);
  }

  async function publish(principal: Principal, input: ExpertDefinition): Promise<RegistryExpert> {
    assertBaseSkill(input);
    requirePermission(principal, 'experts:write');
    // Stored as UTF-8, a lone surrogate becomes U+FFFD: normalize first, so the answer is what is stored.
    const definition = wellFormedDeep(input);
    const organization = await checkNamingRule(principal, definition.name);
    const delegates = parseDelegates(definition.name, definition.delegates ?? []);
    const { name, version } = definition;
    const id = newId();
    const published = await alreadyPublishedOnConflict(name, version, () =>
      write(name, async (tx) => {
        await repo.claimName(tx, name, principal.organizationId, deps.clock.now());
        // Own name FOR UPDATE, delegates' names FOR SHARE (so none is deleted before this commits), all in
        // name order so two publishes delegating to each other's names cannot deadlock.
        const owner = await repo.lockNamesInOrder(
          tx,
          name,
          delegates.map((d) => d.name),
        );
        // Read the clock once the name is locked, so createdAt follows the order publishes commit in.
        const now = deps.clock.now();
        if (owner?.organizationId !== principal.organizationId) {
          throw anotherOrganizations(`The name ${name} belongs to another organization`);
        }
        if (await repo.isVersionReserved(tx, name, version)) {
          throw badRequest(`${name}@${version} was already published; a version number can never be reused`);
        }
        const { policy } = await policies.readPolicy(tx, principal.organizationId);
        const violations = policyViolations(policy, definition, baseSkillNames);
        if (policy.skillsFromCatalog)
          violations.push(...(await catalogViolations(tx, principal, definition)));
        if (violations.length > 0) throw policyRefused(violations);
        await deps.planLimits.assertWithin(tx, principal.organizationId, 'expertVersions');
        for (const delegate of delegates) {
          if (!(await repo.findByKey(tx, delegate))) {
            const takedown =
              delegate.version && (await repo.findTakedown(tx, delegate.name, delegate.version));
            const key = formatExpertKey(delegate);
            throw badRequest(
              takedown
                ? `Delegate ${takenDown(key, takedown.reason)}`
                : `Delegate ${key} is not a published Expert`,
            );
          }
        }
        const candidate = { ...definition, delegates: definition.delegates ?? [] };
        const gate = policy.approvalRequiredForWidening ? await approvalGate(tx, candidate) : undefined;
        // Held back by the policy, it leaves `latest` where it is. Otherwise, no previous holder: the name had
        // no live version, so the organization lists one more Expert.
        if (!gate && !(await repo.dropLatest(tx, name, now))) {
          await repo.countLatest(tx, principal.organizationId, 1);
        }
        const expert: ExpertRecord = {
          id,
          seq: 0, // assigned by the database; not part of any answer
          name,
          version,
          versionOrder: versionOrder(version),
          organizationId: principal.organizationId,
          minRuntimeVersion: definition.minRuntimeVersion,
          description: definition.description,
          instruction: definition.instruction,
          skills: definition.skills,
          delegates: definition.delegates ?? [],
          tags: definition.tags ?? [],
          isLatest: !gate,
          status: 'available',
          integrity: integrityOf(candidate),
          unavailableDelegates: null,
          runsOnV1_0: runsOnV1_0(definition.minRuntimeVersion), // generated by the database from the same rule
          createdAt: now,
          updatedAt: now,
          ownerSlug: organization.slug,
          ownerCreatedAt: organization.createdAt,
        };
        const {
          seq: _seq,
          ownerSlug: _slug,
          ownerCreatedAt: _at,
          tags: _tags,
          runsOnV1_0: _generated,
          ...row
        } = expert;
        await repo.insertExpert(tx, row, now);
        if (expert.tags.length > 0) await repo.replaceTags(tx, name, id, expert.tags, now);
        // Checked on the written state, the only moment a delegation edge appears (delegation-graph.ts).
        const problem = expert.delegates.length > 0 ? await checkDelegation(tx, expert) : undefined;
        if (problem) throw badRequest(`${name}@${version} ${delegationText(problem)}`);
        const approval = gate && { id: newId(), status: 'pending' as const, ...gate };
        if (approval) {
          await policies.insertApproval(tx, {
            id: approval.id,
            organizationId: principal.organizationId,
            expertId: id,
            name,
            version,
            previousVersion: approval.previousVersion,
            reasons: approval.reasons,
            status: 'pending',
            requestedByUserId: principal.userId,
            createdAt: now,
          });
        }
        await audit(tx, principal, 'expert.published', expert, now, {
          tags: expert.tags,
          ...(approval ? { awaitingApproval: { approvalId: approval.id, reasons: approval.reasons } } : {}),
        });
        return { expert, approval };
      }),
    );
    // Answered from what was written (the same transaction holds the name): no read-back query.
    const answer = presentExpert(published.expert);
    return published.approval ? { ...answer, approval: published.approval } : answer;
  }

  /**
   * Whether a new version must wait for approval before it takes `latest` (the policy asks for it): when it
   * widens access over the version holding `latest` (version-diff.ts), or when no version holds `latest` although
   * the name was published before (every live version awaits approval, was rejected, or was deleted), since
   * then there is no approved version to compare with. A name's first version has nothing to widen over.
   */
  async function approvalGate(tx: Tx, candidate: ExpertDefinition): Promise<ApprovalGate | undefined> {
    const previous = await repo.findByKey(tx, { name: candidate.name });
    if (!previous) {
      if (!(await repo.hasPublished(tx, candidate.name))) return undefined;
      return {
        previousVersion: null,
        reasons: ['no approved version of the name holds latest to compare with'],
      };
    }
    const changes = diffDefinitions(previous, candidate).changes;
    const reasons = changes.flatMap((change) => (change.widens ? [change.widens] : []));
    return reasons.length > 0 ? { previousVersion: previous.version, reasons } : undefined;
  }

  /** The name lock makes this unreachable; should it ever race, the primary key still answers 400, not 500. */
  async function alreadyPublishedOnConflict<T>(name: string, version: string, work: () => Promise<T>) {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw badRequest(`${name}@${version} was already published; a version number can never be reused`);
      }
      throw error;
    }
  }

  return { publish };
}
