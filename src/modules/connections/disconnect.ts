import { and, eq } from 'drizzle-orm';
import type { Database, Tx } from '../../db/client.js';
import { forbidden, notFound } from '../../http/errors.js';
import { type ForeignResourceGuard, rejectForeignResource } from '../../http/rate-limit/rate-limit.js';
import type { Clock } from '../../lib/clock.js';
import type { KeyRing } from '../../lib/key-ring.js';
import { type Actor, type AuditMetadata, recordAuditEvent } from '../audit/index.js';
import { can, grantReaches, type Principal, type Scope } from '../auth/index.js';
import type { IntegrationsService } from '../integrations/index.js';
import { type ConnectionRow, connectionAad, connections, type OAuthHttpOptions } from '../oauth/index.js';
import { findEnvironment } from '../tenancy/index.js';
import { type RevocationOutcome, revokeAtProvider } from './token-revocation.js';

export interface DisconnectDeps {
  database: Database;
  clock: Clock;
  integrations: Pick<IntegrationsService, 'getVersion' | 'clientSecret'>;
  keyRing: () => KeyRing;
  http: OAuthHttpOptions;
  foreignResources: ForeignResourceGuard;
}

export type Disconnect = ReturnType<typeof createDisconnect>['disconnect'];
export type DisconnectRow = ReturnType<typeof createDisconnect>['disconnectRow'];

/**
 * Disconnecting a Connection (docs/organization-api.md, "Disconnect a connection"): its tokens are revoked at
 * the provider when the provider has an RFC 7009 endpoint, then the row (and its encrypted tokens) is deleted
 * and the outcome audited, whatever the provider answered.
 */
export function createDisconnect(deps: DisconnectDeps) {
  const { db } = deps.database;

  async function revoke(tx: Tx, row: ConnectionRow): Promise<RevocationOutcome> {
    try {
      const version = await deps.integrations.getVersion(row.integrationVersionId, tx);
      if (!version?.provider.revocationEndpoint) return { outcome: 'not_supported' };
      const ring = deps.keyRing();
      return await revokeAtProvider(
        version,
        deps.integrations.clientSecret(version),
        {
          accessToken: ring.decrypt(row.accessTokenCiphertext, connectionAad(row, 'access_token')),
          refreshToken: row.refreshTokenCiphertext
            ? ring.decrypt(row.refreshTokenCiphertext, connectionAad(row, 'refresh_token'))
            : null,
        },
        deps.http,
      );
    } catch (error) {
      // The key ring is missing or cannot decrypt: nothing to send, and the tokens still go.
      const reason = error instanceof Error ? error.message : 'unknown error';
      return { outcome: 'failed', error: `tokens_unreadable: ${reason}`.slice(0, 300) };
    }
  }

  /**
   * Revokes a locked connection's tokens at the provider, deletes it and audits `connection.deleted`, in the
   * caller's transaction (which holds the row lock). Deleting a project, an environment or an integration
   * with `cascade` disconnects each of its connections this way.
   */
  async function disconnectRow(tx: Tx, row: ConnectionRow, actor: Actor, cause?: AuditMetadata) {
    const revocation = await revoke(tx, row);
    await tx.delete(connections).where(eq(connections.id, row.id));
    await recordAuditEvent(tx, {
      organizationId: row.organizationId,
      action: 'connection.deleted',
      actor,
      target: { type: 'connection', id: row.id },
      at: deps.clock.now(),
      metadata: {
        projectId: row.projectId,
        environmentId: row.environmentId,
        presetKey: row.presetKey,
        accountId: row.accountId,
        revocation,
        ...(cause ? { cascade: cause } : {}),
      },
    });
  }

  return {
    /** Idempotent: an unknown or already deleted connection of a reachable environment answers the same. */
    async disconnect(principal: Principal, projectId: string, environmentId: string, connectionId: string) {
      const environment = await findEnvironment(db, principal.organizationId, projectId, environmentId);
      if (!environment) {
        return rejectForeignResource(
          deps.foreignResources,
          principal,
          notFound(`Environment ${environmentId} of project ${projectId}`),
        );
      }
      const scope: Scope = {
        kind: 'environment',
        organizationId: environment.organizationId,
        projectId: environment.projectId,
        environmentId: environment.id,
      };
      if (!grantReaches(principal, scope)) {
        throw notFound(`Environment ${environmentId} of project ${projectId}`);
      }
      if (!can(principal, 'projects:operate', scope)) throw forbidden('Missing permission projects:operate');

      // Under the row lock, as a token refresh runs: the tokens revoked are the last ones the provider issued,
      // and no refresh can store new ones between the revocation and the delete.
      await db.transaction(async (tx) => {
        const [row] = await tx
          .select()
          .from(connections)
          .where(and(eq(connections.id, connectionId), eq(connections.environmentId, environment.id)))
          .for('update');
        if (!row) return;
        await disconnectRow(tx, row, principal);
      });
    },

    disconnectRow,
  };
}
