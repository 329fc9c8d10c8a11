import { createHash } from 'node:crypto';
import type { ChangeBus } from '../../db/change-bus.js';
import type { Database, Executor, Tx } from '../../db/client.js';
import { isUniqueViolation, sqlState } from '../../db/errors.js';
import { ApiError, anotherOrganizations, forbidden } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { wellFormedDeep } from '../../lib/well-formed.js';
import { recordAuditEvent } from '../audit/audit.repo.js';
import { can, type Principal, requirePermission } from '../auth/index.js';
import type { PlanCheck } from '../billing/plan-limits.js';
import type { CacheEvents } from '../metrics/index.js';
import type { Organization, TenancyService } from '../tenancy/tenancy.service.js';
import { type CatalogLookup, catalogRefs, notInCatalog } from './catalog-rule.js';
import { checkDelegation, type DelegationProblem } from './delegation-graph.js';
import { DEPENDENTS_DEPTH_LIMIT, DEPENDENTS_LIMIT, dependentsOf } from './dependents.js';
import {
  acceptedBaseSkillNames,
  baseSkillProblem,
  type ExpertDefinition,
  type ExpertUpdate,
  formatExpertKey,
  LATEST_TAG,
  type ParsedExpertKey,
  parseExpertKey,
  type Skills,
} from './expert-definition.js';
import { versionOrder } from './expert-key.js';
import { integrityOf } from './integrity.js';
import * as policies from './policy.repo.js';
import { isRuntimeBase, type PolicyViolation, policyViolations } from './publish-policy.js';
import { type CachedAnswer, createRegistryReadCache, REGISTRY_CHANGED } from './registry.cache.js';
import {
  type ExpertRecord,
  presentExpert,
  presentVersion,
  type RegistryView,
  registryView,
} from './registry.presenters.js';
import * as repo from './registry.repo.js';
import type { ListExpertsQuery, RegistryExpert } from './registry.schemas.js';
import { runsOnV1_0 } from './runtime-line.js';
import { diffDefinitions } from './version-diff.js';

export interface RegistryServiceDeps {
  database: Database;
  bus: ChangeBus;
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization'>;
  /** Entries of the per-instance read cache; 0 disables it. */
  cacheEntries?: number;
  /** Hits, misses, evictions and invalidations of the read cache (metrics). */
  cacheEvents?: CacheEvents;
  /** The plan's `expertVersions` limit, checked in the publish transaction. */
  planLimits: PlanCheck;
  /**
   * Names a published base skill may have (CADRE_BASE_SKILL_NAMES); DEFAULT_BASE_SKILL_NAMES are accepted
   * whatever this holds: an operator adds names, never removes Cadre's or Perstack's.
   */
  baseSkillNames?: readonly string[];
  /** The MCP catalog, for the policy rule "skills come from the catalog" (catalog-rule.ts). */
  catalog?: CatalogLookup;
}

export type RegistryService = ReturnType<typeof createRegistryService>;

const badRequest = (reason: string) => new ApiError('bad_request', reason);
const expertNotFound = (key: string) => new ApiError('not_found', `Expert ${key} not found`);
const takenDown = (key: string, reason: string) => `${key} was taken down by the operator: ${reason}`;
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

/** An operator's takedown of one version (docs/registry.md "Takedowns"). */
export interface TakedownRecord {
  key: string;
  expertId: string;
  organizationId: string;
  reason: string;
  takenDownAt: Date;
}

/** A strong ETag over the exact bytes sent. */
const etagOf = (body: Buffer) => `"${createHash('sha1').update(body).digest('base64url')}"`;
const answer = (value: unknown): CachedAnswer => {
  const body = Buffer.from(JSON.stringify(value));
  return { body, etag: etagOf(body) };
};

// Deadlocks (names are locked in order, so none is expected) and serialization failures are retried.
const RETRYABLE = new Set(['40P01', '40001']);

const ALLOWED_STATUS: Record<ExpertRecord['status'], ReadonlyArray<ExpertRecord['status']>> = {
  available: ['deprecated', 'disabled'],
  deprecated: ['disabled', 'available'],
  disabled: [],
};

// The cache key of a name's versions answer (no version or tag starts with a slash).
const VERSIONS_REF = '/versions';

/** What a face asks of an update besides the change itself (the Perstack-compatible face, docs/perstack.md). */
export interface UpdatePolicy {
  /** Refuses a version this face cannot present, before anything changes. */
  assertServable?: (expert: ExpertRecord) => void;
  /** The client named `latest` among the tags: a no-op on the version holding it, refused on any other. */
  latestNamed?: boolean;
}

export function createRegistryService(deps: RegistryServiceDeps) {
  const { db } = deps.database;
  const cache = createRegistryReadCache(deps.bus, deps.cacheEntries ?? 10_000, undefined, deps.cacheEvents);
  /** The accepted base-skill names, read-only: every face publishing through this service checks these. */
  const baseSkillNames = acceptedBaseSkillNames(deps.baseSkillNames);
  const reads = repo.createRecordReader(db, deps.database.connections);
  const listLatest = repo.createListReader(db, deps.database.connections);

  /**
   * Runs a write to `name` in a transaction, tells every instance after commit, forgets it here at once.
   * `touch` names another name whose answers the write changes too (a takedown changes its delegators').
   */
  async function write<T>(
    name: string,
    work: (tx: Tx, touch: (other: string) => void) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await deps.bus.commit(
          async (tx, publish) => {
            const names = new Set([name]);
            const value = await work(tx, (other) => names.add(other));
            for (const changed of names) await publish({ topic: REGISTRY_CHANGED, name: changed });
            return value;
          },
          (change: { topic: string; name: string }) => cache.invalidate(change.name),
        );
      } catch (error) {
        const state = sqlState(error);
        if (attempt < 3 && state !== undefined && RETRYABLE.has(state)) continue;
        throw error;
      }
    }
  }

  /** What the rule "skills come from the catalog" refuses in `definition` (catalog-rule.ts). */
  async function catalogViolations(tx: Tx, principal: Principal, definition: ExpertDefinition) {
    const exempt = (name: string, skill: Skills[string]) => isRuntimeBase(name, skill, baseSkillNames);
    const { refs, violations } = catalogRefs(definition, exempt);
    const missing = deps.catalog
      ? await deps.catalog.missingFromCatalog(tx, principal.organizationId, refs)
      : refs;
    return [...violations, ...missing.map(notInCatalog)];
  }

  function assertSameOrganization(
    principal: Principal,
    expert: ExpertRecord,
    permission: 'experts:write' | 'experts:delete',
  ) {
    if (!can(principal, permission, { kind: 'organization', organizationId: expert.organizationId })) {
      throw anotherOrganizations(`Expert ${expert.name}@${expert.version} belongs to another organization`);
    }
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

  /** A member's change to an Expert version, in its organization's trail (docs/organization-api.md). */
  function audit(
    tx: Tx,
    principal: Principal,
    action: 'expert.published' | 'expert.updated' | 'expert.deleted',
    expert: Pick<ExpertRecord, 'name' | 'version' | 'id' | 'organizationId'>,
    at: Date,
    details: Record<string, unknown> = {},
  ) {
    return recordAuditEvent(tx, {
      organizationId: expert.organizationId,
      action,
      actor: principal,
      target: { type: 'expert', id: `${expert.name}@${expert.version}` },
      at,
      metadata: { expertId: expert.id, ...details },
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

  /**
   * A second owner or admin approves or rejects a version awaiting approval (docs/registry.md "Publish
   * policies"). The name is locked first, so two decisions on one approval are serialized: the first wins, the
   * second finds it decided (409), and only the first is audited. Approving moves `latest` to the version when
   * it is still the most recently published version that may hold it.
   */
  async function decide(principal: Principal, approvalId: string, decision: 'approve' | 'reject') {
    requirePermission(principal, 'experts:approve');
    const found = await policies.findApproval(db, principal.organizationId, approvalId);
    if (!found) throw new ApiError('not_found', `Approval ${approvalId} not found`);
    return write(found.name, async (tx) => {
      await repo.lockName(tx, found.name);
      const approval = await policies.findApproval(tx, principal.organizationId, approvalId, true);
      if (!approval) throw new ApiError('not_found', `Approval ${approvalId} not found`);
      const key = `${approval.name}@${approval.version}`;
      if (approval.requestedByUserId === principal.userId) {
        throw forbidden(`You published ${key}: another owner or admin must decide on it`);
      }
      if (approval.status !== 'pending') {
        throw new ApiError(
          'conflict',
          `${key} was already ${approval.status} (${approval.decidedAt?.toISOString() ?? 'earlier'})`,
        );
      }
      const now = deps.clock.now();
      const status: 'approved' | 'rejected' = decision === 'approve' ? 'approved' : 'rejected';
      if (!(await policies.decideApproval(tx, approval.id, status, principal.userId, now))) {
        throw new ApiError('conflict', `${key} was already decided`);
      }
      let movedLatest = false;
      if (status === 'approved') {
        const { own, latest } = await policies.seqs(tx, approval.expertId, approval.name);
        if (own !== undefined && (!latest || latest.seq < own)) {
          if (latest) await repo.dropLatest(tx, approval.name, now);
          else await repo.countLatest(tx, approval.organizationId, 1);
          await repo.setLatest(tx, approval.expertId, now);
          movedLatest = true;
        }
      }
      await recordAuditEvent(tx, {
        organizationId: approval.organizationId,
        action: status === 'approved' ? 'expert.approved' : 'expert.rejected',
        actor: principal,
        target: { type: 'expert', id: key },
        at: now,
        metadata: {
          expertId: approval.expertId,
          approvalId: approval.id,
          ...(status === 'approved' ? { movedLatest } : {}),
        },
      });
      return { ...approval, status, decidedByUserId: principal.userId, decidedAt: now, movedLatest };
    });
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

  /** The answer for a key that names no live version: 410 with the reason when an operator took it down. */
  async function missing(executor: Executor, key: ParsedExpertKey): Promise<ApiError> {
    const takedown = key.version && (await repo.findTakedown(executor, key.name, key.version));
    if (!takedown) return expertNotFound(formatExpertKey(key));
    return new ApiError('gone', `Expert ${takenDown(formatExpertKey(key), takedown.reason)}`);
  }

  async function mustFind(id: string): Promise<ExpertRecord> {
    const record = await repo.findById(db, id);
    if (!record) throw expertNotFound(id);
    return record;
  }

  async function update(
    principal: Principal,
    key: ParsedExpertKey,
    change: ExpertUpdate,
    policy: UpdatePolicy = {},
  ): Promise<RegistryExpert> {
    requirePermission(principal, 'experts:write');
    const id = await write(key.name, async (tx) => {
      if (!(await repo.lockName(tx, key.name))) throw expertNotFound(formatExpertKey(key));
      const now = deps.clock.now();
      const expert = await repo.findByKey(tx, key);
      if (!expert) throw await missing(tx, key);
      assertSameOrganization(principal, expert, 'experts:write');
      policy.assertServable?.(expert);
      if (policy.latestNamed && !expert.isLatest) {
        throw badRequest(
          `"${LATEST_TAG}" cannot be given to ${expert.name}@${expert.version}: it always names the most ` +
            'recently published live version, and moves only when a version is published or deleted',
        );
      }
      if (change.status !== undefined) {
        if (change.status === expert.status) throw badRequest(`Expert status is already ${expert.status}`);
        if (!ALLOWED_STATUS[expert.status].includes(change.status)) {
          throw badRequest(
            expert.status === 'disabled'
              ? 'A disabled Expert cannot change status'
              : `Status cannot change from ${expert.status} to ${change.status}`,
          );
        }
        await repo.setStatus(tx, expert.id, change.status, now);
      }
      if (change.tags !== undefined) {
        // A tag that moves adds no delegation edge (a floating delegate already reaches every version of the
        // name), so no graph is walked here.
        await repo.replaceTags(tx, expert.name, expert.id, change.tags, now);
      }
      await audit(tx, principal, 'expert.updated', expert, now, {
        ...(change.status !== undefined ? { status: { from: expert.status, to: change.status } } : {}),
        ...(change.tags !== undefined ? { tags: { from: expert.tags, to: change.tags } } : {}),
      });
      return expert.id;
    });
    return presentExpert(await mustFind(id));
  }

  async function remove(principal: Principal, key: ParsedExpertKey): Promise<void> {
    // Owners only: experts:delete is in no other role (ROLE_PERMISSIONS).
    requirePermission(principal, 'experts:delete');
    await write(key.name, async (tx) => {
      if (!(await repo.lockName(tx, key.name))) throw expertNotFound(formatExpertKey(key));
      const now = deps.clock.now();
      const expert = await repo.findByKey(tx, key);
      if (!expert) throw await missing(tx, key);
      assertSameOrganization(principal, expert, 'experts:delete');
      const exact = `${expert.name}@${expert.version}`;
      const names = [exact, ...expert.tags.map((tag) => `${expert.name}@${tag}`)];
      const versions = await repo.versionsOf(tx, expert.name);
      if (versions.length === 1) names.push(expert.name, `${expert.name}@${LATEST_TAG}`);
      const delegators = await repo.delegatingExperts(tx, names, expert.id);
      if (delegators.length > 0) {
        const list = delegators.map((d) => `${d.name}@${d.version}`).join(', ');
        throw badRequest(
          `${exact} cannot be deleted: other Experts delegate to it (${list}). To withdraw it, disable it ` +
            `instead: POST /registry/experts/${exact} with {"status":"disabled"}`,
        );
      }
      await repo.deleteExpert(tx, expert.id);
      await moveLatestAway(tx, expert, now);
      await audit(tx, principal, 'expert.deleted', expert, now);
    });
  }

  /**
   * After `expert` left the live versions: when it held `latest`, the most recent live version takes it (or the
   * organization lists one Expert fewer). Moving `latest` adds no delegation edge: nothing to check.
   */
  async function moveLatestAway(tx: Tx, expert: ExpertRecord, now: Date) {
    if (!expert.isLatest) return;
    const next = await repo.mostRecent(tx, expert.name);
    if (!next) {
      await repo.countLatest(tx, expert.organizationId, -1);
      return;
    }
    await repo.setLatest(tx, next, now);
  }

  /**
   * An operator takes an exact version down (docs/registry.md "Takedowns"): it leaves every read as a delete
   * would, even when other Experts delegate to it; those show it in `unavailableDelegates`. Audited in the
   * owning organization's trail. Idempotent: a second takedown answers the first.
   */
  async function takedown(
    key: ParsedExpertKey & { version: string },
    reason: string,
  ): Promise<TakedownRecord> {
    const exact = formatExpertKey(key);
    return write(key.name, async (tx, touch) => {
      const locked = await repo.lockName(tx, key.name);
      const earlier = locked ? await repo.findTakedown(tx, key.name, key.version) : undefined;
      if (earlier) {
        const { expertId, organizationId, reason: firstReason, takenDownAt } = earlier;
        return { key: exact, expertId, organizationId, reason: firstReason, takenDownAt };
      }
      const expert = locked ? await repo.findByKey(tx, key) : undefined;
      if (!expert) throw expertNotFound(exact);
      const now = deps.clock.now();
      const record: TakedownRecord = {
        key: exact,
        expertId: expert.id,
        organizationId: expert.organizationId,
        reason,
        takenDownAt: now,
      };
      await repo.insertTakedown(tx, {
        name: key.name,
        version: key.version,
        expertId: expert.id,
        organizationId: expert.organizationId,
        reason,
        takenDownAt: now,
      });
      await repo.deleteExpert(tx, expert.id);
      await moveLatestAway(tx, expert, now);
      for (const name of await repo.markDelegateUnavailable(tx, exact, reason)) touch(name);
      await recordAuditEvent(tx, {
        organizationId: expert.organizationId,
        action: 'expert.taken_down',
        actor: { kind: 'admin' },
        target: { type: 'expert', id: exact },
        at: now,
      });
      return record;
    });
  }

  /**
   * A cached answer synchronously (the hot path costs no promise); otherwise a read. Each face (`view`) has
   * answers of its own in the cache, under its name; a change to a name drops every face's.
   */
  function get(
    key: ParsedExpertKey,
    view: RegistryView = registryView,
  ): CachedAnswer | Promise<CachedAnswer> {
    const ref = `${view.name}${key.version ?? key.tag ?? ''}`;
    return cache.get(key.name, ref) ?? readExpert(key, ref, view);
  }

  async function readExpert(key: ParsedExpertKey, ref: string, view: RegistryView): Promise<CachedAnswer> {
    const token = cache.token();
    const expert = await reads.readByKey(key);
    if (!expert) throw await missing(db, key);
    const fresh = answer({ data: { expert: view.expert(expert) } });
    cache.set(key.name, ref, fresh, token);
    return fresh;
  }

  function versions(
    key: ParsedExpertKey,
    view: RegistryView = registryView,
  ): CachedAnswer | Promise<CachedAnswer> {
    return cache.get(key.name, `${view.name}${VERSIONS_REF}`) ?? readVersions(key, view);
  }

  async function readVersions(key: ParsedExpertKey, view: RegistryView): Promise<CachedAnswer> {
    const token = cache.token();
    const rows = await reads.readVersions(key.name);
    const latest = rows.find((row) => row.isLatest);
    if (!latest) throw expertNotFound(key.name);
    const items = rows.map(view.versionItem).filter((item) => item !== undefined);
    const fresh = answer({
      data: { versions: items, latest: latest.version },
      meta: { total: items.length },
    });
    cache.set(key.name, `${view.name}${VERSIONS_REF}`, fresh, token);
    return fresh;
  }

  async function list(query: ListExpertsQuery, view: RegistryView = registryView): Promise<CachedAnswer> {
    const normalized = JSON.stringify([
      view.name,
      query.organizationId ?? null,
      query.filter?.toLowerCase() ?? null,
      query.q?.toLowerCase() ?? null,
      query.sort ?? 'createdAt',
      query.order,
      query.take,
      query.skip,
    ]);
    const cached = cache.getList(normalized);
    if (cached) return cached;
    const token = cache.token();
    const { rows, total } = await listLatest(query, view.list);
    const fresh = answer({
      data: { experts: rows.map(view.listItem) },
      meta: { total, take: query.take, skip: query.skip },
    });
    cache.setList(normalized, fresh, token);
    return fresh;
  }

  /** The versions that delegate to any version of `key`'s name (not cached: read on an Expert's page). */
  async function delegators(key: ParsedExpertKey): Promise<CachedAnswer> {
    const rows = await repo.delegatorsOf(db, key.name);
    return answer({ data: { experts: rows.map(presentVersion) }, meta: { total: rows.length } });
  }

  /**
   * What changed from one version of a name to another (version-diff.ts). Read fresh, not cached: it is
   * asked for by a reviewer, not on a hot path. Both keys must name the same Expert name.
   */
  async function diff(from: ParsedExpertKey, to: ParsedExpertKey): Promise<CachedAnswer> {
    if (from.name !== to.name) {
      throw badRequest(`Compare two versions of one name: "${from.name}" and "${to.name}" differ`);
    }
    const [before, after] = await Promise.all([reads.readByKey(from), reads.readByKey(to)]);
    if (!before) throw await missing(db, from);
    if (!after) throw await missing(db, to);
    const left = presentExpert(before);
    const right = presentExpert(after);
    return answer({
      data: {
        diff: {
          from: left.key,
          to: right.key,
          fromIntegrity: left.integrity,
          toIntegrity: right.integrity,
          ...diffDefinitions(left, right),
        },
      },
    });
  }

  /** The versions that delegate to `key`'s version, directly and transitively (dependents.ts; not cached). */
  async function dependents(key: ParsedExpertKey): Promise<CachedAnswer> {
    const expert = await reads.readByKey(key);
    if (!expert) throw await missing(db, key);
    const rows = await dependentsOf(db, expert);
    const shown = rows.slice(0, DEPENDENTS_LIMIT);
    return answer({
      data: {
        key: `${expert.name}@${expert.version}`,
        dependents: shown.map((row) => ({
          key: `${row.name}@${row.version}`,
          name: row.name,
          version: row.version,
          depth: row.depth,
          path: row.path,
          references: row.references,
        })),
      },
      meta: {
        total: shown.length,
        truncated: rows.length > DEPENDENTS_LIMIT,
        depthLimit: DEPENDENTS_DEPTH_LIMIT,
        limit: DEPENDENTS_LIMIT,
      },
    });
  }

  return {
    publish,
    decide,
    update,
    remove,
    takedown,
    get,
    versions,
    delegators,
    dependents,
    diff,
    list,
    cache,
    baseSkillNames,
  };
}
