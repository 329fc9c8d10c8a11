import { eq } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import type { Database } from '../../db/client.js';
import { ApiError, notFound, retryLater } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { KeyRing } from '../../lib/key-ring.js';
import { recordEvent } from '../events/index.js';
import type { IntegrationsService } from '../integrations/index.js';
import {
  authorizationServer,
  type ConnectionRow,
  clientAuthentication,
  clientOf,
  connectionAad,
  connections,
  describeProviderError,
  grantedScopes,
  type OAuthHttpOptions,
  presetName,
  requestOptions,
  tokenResponseOptions,
} from '../oauth/index.js';

/** Refresh when the access token expires within this window. */
const REFRESH_WINDOW_MS = 5 * 60_000;
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_MAX_MS = 60 * 60_000;

const backoffMs = (failures: number) =>
  Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1), BACKOFF_MAX_MS);

export interface AccessToken {
  accessToken: string;
  tokenType: string;
  expiresAt: Date | null;
}

export interface ConnectionTokensDeps {
  database: Database;
  clock: Clock;
  integrations: Pick<IntegrationsService, 'getVersion' | 'clientSecret'>;
  keyRing: () => KeyRing;
  http: OAuthHttpOptions;
}

type Outcome = { ok: true; token: AccessToken } | { ok: false; error: ApiError };

const needsReauth = (
  row: Pick<ConnectionRow, 'id' | 'presetKey' | 'accountId' | 'accountLabel' | 'lastError' | 'nextRefreshAt'>,
  now: Date,
) => {
  // Named as people know it (GitHub, the account), with the id for whoever scripts against it.
  const message =
    `The ${presetName(row.presetKey)} connection of ${row.accountLabel ?? row.accountId} (${row.id}) needs ` +
    `re-authorization${row.lastError ? `: ${row.lastError}` : ''}`;
  return row.nextRefreshAt
    ? retryLater(
        'conflict',
        message,
        Math.max(1, Math.ceil((row.nextRefreshAt.getTime() - now.getTime()) / 1000)),
      )
    : new ApiError('conflict', message);
};

const isFresh = (row: ConnectionRow, now: Date) =>
  row.status === 'active' && (!row.expiresAt || row.expiresAt.getTime() - now.getTime() > REFRESH_WINDOW_MS);

export type ConnectionTokens = ReturnType<typeof createConnectionTokens>;

/**
 * Valid access tokens for Connections. A refresh happens under the connection's row lock (SELECT … FOR
 * UPDATE), so however many callers on however many instances ask at once, the provider sees one refresh
 * request and everyone gets its result. Within one instance, concurrent callers also share one attempt, so
 * they wait on a promise instead of each holding a pooled connection on the lock.
 *
 * The refresh request runs inside that transaction (bounded by the HTTP timeout): the lock is what makes it
 * single-flight across instances, and providers that rotate refresh tokens would otherwise invalidate a
 * concurrent caller's refresh token.
 */
export function createConnectionTokens({
  database,
  clock,
  integrations,
  keyRing,
  http,
}: ConnectionTokensDeps) {
  const inFlight = new Map<string, Promise<AccessToken>>();

  const current = (ring: KeyRing, row: ConnectionRow): AccessToken => ({
    accessToken: ring.decrypt(row.accessTokenCiphertext, connectionAad(row, 'access_token')),
    tokenType: row.tokenType,
    expiresAt: row.expiresAt,
  });

  async function refreshUnderLock(connectionId: string): Promise<AccessToken> {
    const ring = keyRing();
    const outcome = await database.db.transaction(async (tx): Promise<Outcome> => {
      const [row] = await tx.select().from(connections).where(eq(connections.id, connectionId)).for('update');
      if (!row) return { ok: false, error: notFound(`Connection ${connectionId}`) };
      const now = clock.now();
      // Another caller may have refreshed while this one waited for the lock.
      if (isFresh(row, now)) return { ok: true, token: current(ring, row) };
      if (row.nextRefreshAt && row.nextRefreshAt > now) return { ok: false, error: needsReauth(row, now) };

      const failed = async (lastError: string): Promise<Outcome> => {
        const failures = row.refreshFailures + 1;
        const [updated] = await tx
          .update(connections)
          .set({
            status: 'needs_reauth',
            lastError,
            refreshFailures: failures,
            nextRefreshAt: new Date(now.getTime() + backoffMs(failures)),
            updatedAt: now,
          })
          .where(eq(connections.id, row.id))
          .returning();
        await recordEvent(tx, {
          organizationId: row.organizationId,
          type: 'connection.refresh_failed',
          actor: { kind: 'system' },
          resource: { type: 'connection', id: row.id },
          payload: {
            connection: {
              id: row.id,
              projectId: row.projectId,
              environmentId: row.environmentId,
              presetKey: row.presetKey,
            },
            // What the provider answered (an OAuth error code and its description), never a token.
            error: lastError.slice(0, 500),
            failures,
          },
          at: now,
        });
        return { ok: false, error: needsReauth(updated!, now) };
      };

      if (!row.refreshTokenCiphertext)
        return failed('no_refresh_token: the provider issued no refresh token');
      const version = await integrations.getVersion(row.integrationVersionId, tx);
      if (!version) return failed('integration_missing: the pinned integration version is gone');
      try {
        const as = authorizationServer(version.provider);
        const client = clientOf(version);
        const response = await oauth.refreshTokenGrantRequest(
          as,
          client,
          clientAuthentication(version, integrations.clientSecret(version)),
          ring.decrypt(row.refreshTokenCiphertext, connectionAad(row, 'refresh_token')),
          requestOptions(http),
        );
        const tokens = await oauth.processRefreshTokenResponse(
          as,
          client,
          response,
          tokenResponseOptions(version.presetKey),
        );
        const expiresAt =
          typeof tokens.expires_in === 'number' ? new Date(now.getTime() + tokens.expires_in * 1000) : null;
        await tx
          .update(connections)
          .set({
            status: 'active',
            tokenType: tokens.token_type,
            accessTokenCiphertext: ring.encrypt(tokens.access_token, connectionAad(row, 'access_token')),
            // Providers that rotate refresh tokens send a new one; the others keep the old one valid.
            ...(tokens.refresh_token
              ? {
                  refreshTokenCiphertext: ring.encrypt(
                    tokens.refresh_token,
                    connectionAad(row, 'refresh_token'),
                  ),
                }
              : {}),
            scopes: grantedScopes(tokens.scope, row.scopes),
            expiresAt,
            lastError: null,
            refreshFailures: 0,
            nextRefreshAt: null,
            updatedAt: now,
          })
          .where(eq(connections.id, row.id));
        return {
          ok: true,
          token: { accessToken: tokens.access_token, tokenType: tokens.token_type, expiresAt },
        };
      } catch (error) {
        const { code, description } = describeProviderError(error);
        return failed(`${code}: ${description}`.slice(0, 500));
      }
    });
    if (!outcome.ok) throw outcome.error;
    return outcome.token;
  }

  return {
    /**
     * A valid access token for the connection, refreshed first when it expires within five minutes. Throws
     * 409 when the connection needs re-authorization (the refresh failed; retried after a backoff).
     */
    async getAccessToken(connectionId: string): Promise<AccessToken> {
      // Fast path without a lock: most calls find a token that is still good.
      const [row] = await database.db.select().from(connections).where(eq(connections.id, connectionId));
      if (!row) throw notFound(`Connection ${connectionId}`);
      if (isFresh(row, clock.now())) return current(keyRing(), row);
      const running = inFlight.get(connectionId);
      if (running) return running;
      const attempt = refreshUnderLock(connectionId).finally(() => inFlight.delete(connectionId));
      inFlight.set(connectionId, attempt);
      return attempt;
    },
  };
}
