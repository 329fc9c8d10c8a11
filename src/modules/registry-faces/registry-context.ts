import { createHash } from 'node:crypto';
import type { ChangeBus } from '../../db/change-bus.js';
import type { Database, Executor, Tx } from '../../db/client.js';
import { sqlState } from '../../db/errors.js';
import { ApiError } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { recordAuditEvent } from '../audit/index.js';
import type { Principal } from '../auth/index.js';
import type { PlanCheck } from '../billing/index.js';
import type { CacheEvents } from '../metrics/index.js';
import {
  acceptedBaseSkillNames,
  type CachedAnswer,
  createListReader,
  createRegistryReadCache,
  type ExpertRecord,
  formatExpertKey,
  type ParsedExpertKey,
  REGISTRY_CHANGED,
  repo,
} from '../registry/index.js';
import type { CatalogLookup } from '../supply-chain/index.js';
import type { TenancyService } from '../tenancy/index.js';

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

export const badRequest = (reason: string) => new ApiError('bad_request', reason);
export const expertNotFound = (key: string) => new ApiError('not_found', `Expert ${key} not found`);
export const takenDown = (key: string, reason: string) => `${key} was taken down by the operator: ${reason}`;

/** A strong ETag over the exact bytes sent. */
const etagOf = (body: Buffer) => `"${createHash('sha1').update(body).digest('base64url')}"`;
export const answer = (value: unknown): CachedAnswer => {
  const body = Buffer.from(JSON.stringify(value));
  return { body, etag: etagOf(body) };
};

// Deadlocks (names are locked in order, so none is expected) and serialization failures are retried.
const RETRYABLE = new Set(['40P01', '40001']);

/** What the parts of the registry service share: its dependencies, the read cache, and how a write commits. */
export type RegistryContext = ReturnType<typeof createRegistryContext>;

export function createRegistryContext(deps: RegistryServiceDeps) {
  const { db } = deps.database;
  const cache = createRegistryReadCache(deps.bus, deps.cacheEntries ?? 10_000, undefined, deps.cacheEvents);
  /** The accepted base-skill names, read-only: every face publishing through this service checks these. */
  const baseSkillNames = acceptedBaseSkillNames(deps.baseSkillNames);
  const reads = repo.createRecordReader(db, deps.database.connections);
  const listLatest = createListReader(db, deps.database.connections);

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

  return { deps, db, cache, baseSkillNames, reads, listLatest, write, audit, missing, mustFind };
}
