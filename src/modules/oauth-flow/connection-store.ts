import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ApiError } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import type { KeyRing } from '../../lib/key-ring.js';
import { recordAuditEvent } from '../audit/index.js';
import type { Principal } from '../auth/index.js';
import type { PlanCheck } from '../billing/index.js';
import {
  connectionAad,
  connections,
  grantedScopes,
  type IntegrationVersionRow,
  integrations as integrationsTable,
} from '../oauth/index.js';
import { findEnvironment } from '../tenancy/index.js';
import type { Exchanged } from './authorization.js';
import type { StatePayload } from './state-cookie.js';

export const ENVIRONMENT_REMOVED = 'The environment (or its project) was deleted during the authorization.';
export const INTEGRATION_REMOVED =
  'The integration was removed during the authorization; an owner or admin can register it again.';

/** Why a callback's transaction kept no connection (its tokens are then revoked at the provider). */
interface Refusal {
  refused: 'environment_removed' | 'integration_changed' | 'plan_limit_exceeded';
  description: string;
}

export interface ConnectionStoreDeps {
  database: Database;
  keyRing: () => KeyRing;
  /** The plan's `connections` limit, checked when a callback would add a Connection. */
  planLimits: PlanCheck;
}

/**
 * Keeps what a connect callback's exchange gave: the connection of the pinned environment and preset,
 * created or renewed with the new tokens (encrypted), and audited, in one transaction that first checks,
 * under lock, that the environment and the integration are still there and that a new connection fits the
 * plan. Answers the connection's id, or why it was refused.
 */
export function createConnectionStore(deps: ConnectionStoreDeps) {
  const { db } = deps.database;
  return async function storeConnection(
    principal: Principal,
    payload: StatePayload,
    version: IntegrationVersionRow,
    { result, identity }: Exchanged,
    now: Date,
  ): Promise<Refusal | { id: string }> {
    const ring = deps.keyRing();
    const values = {
      integrationVersionId: version.id,
      accountId: identity.accountId,
      accountLabel: identity.accountLabel,
      scopes: grantedScopes(result.tokens.scope, version.scopes),
      status: 'active' as const,
      tokenType: result.tokens.token_type,
      accessTokenCiphertext: ring.encrypt(result.tokens.access_token, connectionAad(payload, 'access_token')),
      refreshTokenCiphertext: result.tokens.refresh_token
        ? ring.encrypt(result.tokens.refresh_token, connectionAad(payload, 'refresh_token'))
        : null,
      expiresAt:
        typeof result.tokens.expires_in === 'number'
          ? new Date(now.getTime() + result.tokens.expires_in * 1000)
          : null,
      lastError: null,
      refreshFailures: 0,
      nextRefreshAt: null,
      updatedAt: now,
    };
    // A new Connection counts against the plan; renewing one (same environment and preset) does not.
    return db.transaction(async (tx): Promise<Refusal | { id: string }> => {
      // Checked again under lock, since the exchange took a while: deleting the environment (or its
      // project) locks it FOR UPDATE and removing the integration locks its row FOR UPDATE, so either
      // that finished first and is seen here, or it waits for this transaction and then finds the new
      // connection (409, or disconnected by its cascade).
      const stillThere = await findEnvironment(
        tx,
        payload.organizationId,
        payload.projectId,
        payload.environmentId,
        { lock: 'share' },
      );
      if (!stillThere) return { refused: 'environment_removed', description: ENVIRONMENT_REMOVED };
      const [integration] = await tx
        .select({ currentVersionId: integrationsTable.currentVersionId })
        .from(integrationsTable)
        .where(
          and(
            eq(integrationsTable.organizationId, payload.organizationId),
            eq(integrationsTable.presetKey, payload.presetKey),
          ),
        )
        .for('share');
      if (!integration?.currentVersionId) {
        return { refused: 'integration_changed', description: INTEGRATION_REMOVED };
      }
      const [existing] = await tx
        .select({ id: connections.id })
        .from(connections)
        .where(
          and(
            eq(connections.environmentId, payload.environmentId),
            eq(connections.presetKey, payload.presetKey),
          ),
        );
      if (!existing) {
        try {
          await deps.planLimits.assertWithin(tx, payload.organizationId, 'connections');
        } catch (error) {
          if (error instanceof ApiError && error.code === 'plan_limit_exceeded') {
            return { refused: 'plan_limit_exceeded', description: error.message };
          }
          throw error;
        }
      }
      const [row] = await tx
        .insert(connections)
        .values({
          id: newId(),
          organizationId: payload.organizationId,
          projectId: payload.projectId,
          environmentId: payload.environmentId,
          presetKey: payload.presetKey,
          createdAt: now,
          ...values,
        })
        .onConflictDoUpdate({ target: [connections.environmentId, connections.presetKey], set: values })
        // xmax is 0 on a freshly inserted row: whether this callback created the connection or renewed it.
        .returning({ id: connections.id, inserted: sql<boolean>`(xmax = 0)` });
      await recordAuditEvent(tx, {
        organizationId: payload.organizationId,
        action: row!.inserted ? 'connection.created' : 'connection.updated',
        actor: principal,
        target: { type: 'connection', id: row!.id },
        at: now,
        metadata: {
          projectId: payload.projectId,
          environmentId: payload.environmentId,
          presetKey: payload.presetKey,
          accountId: identity.accountId,
          integrationVersionId: version.id,
        },
      });
      return row!;
    });
  };
}
