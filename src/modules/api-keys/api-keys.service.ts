import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { ChangeBus } from '../../db/change-bus.js';
import type { Database, Executor } from '../../db/client.js';
import { ApiError, type ErrorDetail, forbidden, notFound } from '../../http/errors.js';
import type { ForeignResourceGuard } from '../../http/rate-limit/rate-limit.js';
import { decodeCursor, encodeCursor } from '../../http/seq-cursor.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { cursorPage } from '../../lib/page.js';
import { latestAuditEvents, recordAuditEvent } from '../audit/index.js';
import type { Actor, Grant, Permission } from '../auth/index.js';
import {
  can,
  managesAllApiKeys,
  type Principal,
  ROLE_PERMISSIONS,
  requirePermission,
} from '../auth/index.js';
import type { PlanCheck } from '../billing/index.js';
import { agents, environments, projects } from '../tenancy/index.js';
import { API_KEY_CHANGED, type ApiKeyAuthenticator } from './api-key-authenticator.js';
import { generateApiKeySecret, type NewApiKeySecret } from './api-key-secret.js';
import { type ApiKeyRow, createApiKeyReads } from './api-keys.reads.js';
import type { ApiKeyRecord, CreateApiKeyInput } from './api-keys.schemas.js';
import { apiKeys } from './api-keys.tables.js';

export type { Actor } from '../auth/index.js';

/** A secret made by whoever will hold it (`cadre login`): only its digest and start reach Cadre. */
export type HeldSecret = Pick<NewApiKeySecret, 'digest' | 'start'>;

/** The permissions a grant names one by one ("*" names none: it follows the role). */
const listedPermissions = (grant: Grant): Permission[] =>
  (grant.permissions as string[]).filter((p): p is Permission => p !== '*');

export interface ApiKeysServiceDeps {
  database: Database;
  bus: ChangeBus;
  clock: Clock;
  authenticator: ApiKeyAuthenticator;
  foreignResources: ForeignResourceGuard;
  /** The plan's `apiKeys` limit, checked in the creating transaction. */
  planLimits: PlanCheck;
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;

const toApiKeyRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  start: row.start,
  grants: row.grants,
  userId: row.userId,
  organizationId: row.organizationId,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt?.toISOString() ?? null,
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

export function createApiKeysService({
  database,
  bus,
  clock,
  authenticator,
  foreignResources,
  planLimits,
}: ApiKeysServiceDeps) {
  const { db } = database;
  const reads = createApiKeyReads(database);

  /**
   * Every id a grant names must exist in the organization; unknown and foreign ids read the same. With `lock`
   * (in the transaction that inserts the key), the projects the grant reaches are locked FOR SHARE first and
   * then the named rows: deleting a project, environment or agent locks it FOR UPDATE, so a delete that
   * began first is waited for and its rows are then absent here (422), and a delete that comes second waits
   * for this key and then finds it among its blockers (409, or revoked by its cascade). Without the lock a key
   * created during a project's delete kept a grant naming the deleted project.
   */
  async function checkGrantTargets(executor: Executor, organizationId: string, grant: Grant, lock = false) {
    const lookup = {
      organization: undefined,
      project: {
        table: projects,
        ids: grant.type === 'project' ? grant.projectIds : [],
        field: 'projectIds',
      },
      environment: {
        table: environments,
        ids: grant.type === 'environment' ? grant.environmentIds : [],
        field: 'environmentIds',
      },
      agent: { table: agents, ids: grant.type === 'agent' ? grant.agentIds : [], field: 'agentIds' },
    }[grant.type];
    if (!lookup) return;
    const named = and(eq(lookup.table.organizationId, organizationId), inArray(lookup.table.id, lookup.ids));
    if (lock && lookup.table !== projects) {
      const parents = await executor
        .selectDistinct({
          projectId: lookup.table === environments ? environments.projectId : agents.projectId,
        })
        .from(lookup.table)
        .where(named);
      await lockProjects(
        executor,
        organizationId,
        parents.map((row) => row.projectId),
      );
    }
    const query = executor
      .select({ id: lookup.table.id })
      .from(lookup.table)
      .where(named)
      .orderBy(lookup.table.id);
    const found = lock ? await query.for('share') : await query;
    const known = new Set(found.map((row) => row.id));
    const details: ErrorDetail[] = lookup.ids.flatMap((id, index) =>
      known.has(id) ? [] : [{ path: `grants.${lookup.field}.${index}`, message: `${id} does not exist` }],
    );
    if (details.length) throw new ApiError('validation_failed', 'Request validation failed', details);
  }

  /** The projects, FOR SHARE, in id order (every locker of several projects takes them in one order). */
  async function lockProjects(executor: Executor, organizationId: string, projectIds: string[]) {
    if (projectIds.length === 0) return;
    await executor
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.organizationId, organizationId), inArray(projects.id, projectIds)))
      .orderBy(projects.id)
      .for('share');
  }

  function resolveExpiry(input: CreateApiKeyInput): Date | null {
    const now = clock.now();
    if (input.expiresIn !== undefined) return new Date(now.getTime() + input.expiresIn * 1000);
    if (input.expiresAt == null) return null;
    const expiresAt = new Date(input.expiresAt);
    if (expiresAt <= now) {
      throw new ApiError('validation_failed', 'Request validation failed', [
        { path: 'expiresAt', message: 'must be in the future' },
      ]);
    }
    return expiresAt;
  }

  async function audit(
    executor: Executor,
    actor: Actor,
    organizationId: string,
    action: string,
    keyId: string,
  ) {
    await recordAuditEvent(executor, {
      organizationId,
      action,
      actor,
      target: { type: 'apiKey', id: keyId },
      at: clock.now(),
    });
  }

  /** Inserts a key for `userId` in `organizationId`; the caller has checked who may do so. */
  async function insertKey(
    executor: Executor,
    actor: Actor,
    target: { organizationId: string; userId: string },
    input: CreateApiKeyInput,
  ) {
    const secret = generateApiKeySecret();
    return { ...(await insertRow(executor, actor, target, input, secret)), key: secret.key };
  }

  async function insertRow(
    executor: Executor,
    actor: Actor,
    target: { organizationId: string; userId: string },
    input: CreateApiKeyInput,
    secret: HeldSecret,
  ): Promise<ApiKeyRecord> {
    await checkGrantTargets(executor, target.organizationId, input.grants, true);
    await planLimits.assertWithin(executor, target.organizationId, 'apiKeys');
    const [row] = await executor
      .insert(apiKeys)
      .values({
        id: newId(),
        organizationId: target.organizationId,
        userId: target.userId,
        name: input.name ?? null,
        start: secret.start,
        digest: secret.digest,
        grants: input.grants,
        createdAt: clock.now(),
        expiresAt: resolveExpiry(input),
      })
      .returning();
    await audit(executor, actor, target.organizationId, 'api_key.created', row!.id);
    return toApiKeyRecord(row!);
  }

  /** Who may create `input`: the permission, the role's ceiling, and grant ids of the organization. */
  async function checkCreate(principal: Principal, input: CreateApiKeyInput) {
    requirePermission(principal, 'api-keys:create');
    // "*" is "everything my role allows": effective rights are grants ∩ role, so any role may grant it and
    // it gives exactly that role. Only a listed permission can exceed the role, and that is refused.
    const ceiling = ROLE_PERMISSIONS[principal.role];
    const beyond = listedPermissions(input.grants).filter((permission) => !ceiling.has(permission));
    if (beyond.length) {
      throw forbidden(`Your role (${principal.role}) cannot grant: ${beyond.join(', ')}`);
    }
    // Grants naming Projects (their environments, agents) outside the organization count towards
    // foreign_resource_rate_limited; checked before the transaction so no network call runs inside it.
    try {
      await checkGrantTargets(db, principal.organizationId, input.grants);
    } catch (error) {
      if (error instanceof ApiError) await foreignResources.record(principal);
      throw error;
    }
  }
  const own = (principal: Principal) => ({
    organizationId: principal.organizationId,
    userId: principal.userId,
  });

  async function findInOrganization(organizationId: string, apiKeyId: string): Promise<ApiKeyRow> {
    const row = await reads.byId(apiKeyId);
    // Another organization's key reads as absent.
    if (row?.organizationId !== organizationId) throw notFound(`API key ${apiKeyId}`);
    return row;
  }

  function requireOnKey(
    principal: Principal,
    permission: 'api-keys:read' | 'api-keys:revoke',
    row: ApiKeyRow,
  ) {
    const scope = { kind: 'apiKey' as const, organizationId: row.organizationId, ownerUserId: row.userId };
    if (!can(principal, permission, scope))
      throw forbidden(`Missing permission ${permission} on this API key`);
  }

  return {
    insertKey,

    /** Operator path (admin API): creates a key for any member, in its own transaction. */
    createForUser(
      actor: Actor,
      target: { organizationId: string; userId: string },
      input: CreateApiKeyInput,
    ) {
      return db.transaction((tx) => insertKey(tx, actor, target, input));
    },

    async create(principal: Principal, input: CreateApiKeyInput) {
      await checkCreate(principal, input);
      return db.transaction((tx) => insertKey(tx, principal, own(principal), input));
    },

    /** Creates a key whose secret its holder made (`cadre login`): the same checks, and no secret answered. */
    async createHeld(principal: Principal, input: CreateApiKeyInput, secret: HeldSecret) {
      await checkCreate(principal, input);
      return db.transaction((tx) => insertRow(tx, principal, own(principal), input, secret));
    },

    async list(principal: Principal, query: { limit: number; cursor?: string | undefined }) {
      requirePermission(principal, 'api-keys:read');
      const rows = await reads.page({
        organizationId: principal.organizationId,
        userId: managesAllApiKeys(principal) ? undefined : principal.userId,
        before: query.cursor ? decodeCursor(query.cursor) : undefined,
        limit: query.limit + 1,
      });
      const page = cursorPage(rows, query.limit, (last) => encodeCursor(last.seq), toApiKeyRecord);
      return { apiKeys: page.items, pagination: page.pagination };
    },

    async get(principal: Principal, apiKeyId: string) {
      const row = await findInOrganization(principal.organizationId, apiKeyId);
      requireOnKey(principal, 'api-keys:read', row);
      return toApiKeyRecord(row);
    },

    /** Idempotent: a second revoke answers the same record with the first `revokedAt`. */
    async revoke(principal: Principal, apiKeyId: string) {
      const existing = await findInOrganization(principal.organizationId, apiKeyId);
      requireOnKey(principal, 'api-keys:revoke', existing);
      // Answers only once the eviction has gone out to every instance: "revoked" then means refused everywhere.
      const revoked = await bus.commit(
        async (tx, publish) => {
          const [row] = await tx
            .update(apiKeys)
            .set({ revokedAt: clock.now() })
            .where(and(eq(apiKeys.id, apiKeyId), isNull(apiKeys.revokedAt)))
            .returning();
          if (!row) return undefined;
          await audit(tx, principal, row.organizationId, 'api_key.revoked', row.id);
          await publish({ topic: API_KEY_CHANGED, id: row.id });
          return row;
        },
        (change: { topic: string; id: string }) => authenticator.forget(change.id),
      );
      return toApiKeyRecord(revoked ?? (await findInOrganization(principal.organizationId, apiKeyId)));
    },

    /** The operator's audit listing, read by audit: the operator's organization routes take it from here. */
    listAuditEvents: (organizationId: string, limit: number) => latestAuditEvents(db, organizationId, limit),
  };
}
