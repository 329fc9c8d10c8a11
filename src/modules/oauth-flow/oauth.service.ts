import { and, eq, lt, sql } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import type { Database } from '../../db/client.js';
import { type CookieOptions, expiredCookie, readCookie, serializeCookie } from '../../http/cookies.js';
import { ApiError, forbidden, notFound } from '../../http/errors.js';
import { type ForeignResourceGuard, rejectForeignResource } from '../../http/rate-limit/rate-limit.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { KeyRing } from '../../lib/key-ring.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { recordAuditEvent } from '../audit/index.js';
import { can, type Principal, requirePermission } from '../auth/index.js';
import type { PlanCheck } from '../billing/index.js';
import {
  environmentScope,
  findEnvironment,
  type RevocationOutcome,
  revokeAtProvider,
} from '../connections/index.js';
import type { IntegrationsService } from '../integrations/index.js';
import {
  type AccountIdentity,
  allPresets,
  connectionAad,
  connections,
  describeProviderError,
  findPreset,
  grantedScopes,
  type IntegrationVersionRow,
  integrations as integrationsTable,
  type OAuthHttpOptions,
  type Preset,
} from '../oauth/index.js';
import { environments } from '../tenancy/index.js';
import { oauthStates } from './oauth-flow.tables.js';
import { resolveReturnTo, withOutcome } from './return-to.js';
import {
  createStateCookieCodec,
  STATE_COOKIE,
  STATE_COOKIE_PATH,
  STATE_TTL_SECONDS,
  type StatePayload,
} from './state-cookie.js';
import { type ExchangeResult, exchangeCode, identifyAccount } from './token-exchange.js';

export interface OAuthServiceDeps {
  database: Database;
  clock: Clock;
  integrations: IntegrationsService;
  keyRing: () => KeyRing;
  http: OAuthHttpOptions;
  /** Cadre's own public origin (redirect_uri); a function because tests learn their port after start-up. */
  publicUrl: () => string;
  /** Where the console lives: relative `returnTo` paths resolve against it; invalid states land on its root. */
  consoleUrl: () => string;
  allowedReturnOrigins: readonly string[];
  /** Counts requests naming Projects outside the caller's organization (429 past the limit). */
  foreignResources: ForeignResourceGuard;
  /** The plan's `connections` limit, checked when a callback would add a Connection. */
  planLimits: PlanCheck;
}

export interface StartQuery {
  projectId: string;
  environmentId: string;
  returnTo?: string | undefined;
}

/** Outcome codes of a callback (docs/oauth.md), plus whatever error code the provider sent. */
type FailureCode =
  | 'invalid_state'
  | 'state_expired'
  | 'forbidden'
  | 'exchange_failed'
  | 'environment_removed'
  | 'integration_changed';

/** Why a callback's transaction kept no connection (its tokens are then revoked at the provider). */
interface Refusal {
  refused: 'environment_removed' | 'integration_changed' | 'plan_limit_exceeded';
  description: string;
}

const ENVIRONMENT_REMOVED = 'The environment (or its project) was deleted during the authorization.';
const INTEGRATION_REMOVED =
  'The integration was removed during the authorization; an owner or admin can register it again.';
const REVOCATION_WORDS: Record<RevocationOutcome['outcome'], string> = {
  revoked: 'The tokens the provider issued were revoked there.',
  not_supported: 'The provider offers no revocation: remove the grant in its settings.',
  failed: 'Revoking the tokens the provider issued failed: remove the grant in its settings.',
};

const PROVIDER_ERROR = /^[\x21-\x7e]{1,64}$/;
const MAX_DESCRIPTION = 300;

export type OAuthService = ReturnType<typeof createOAuthService>;

export function createOAuthService(deps: OAuthServiceDeps) {
  const { database, clock, integrations, http } = deps;
  const { db } = database;
  const allowedOrigins = deps.allowedReturnOrigins.map((origin) => new URL(origin).origin);
  const publicBase = () => deps.publicUrl().replace(/\/+$/, '');
  const redirectUri = (presetKey: string) => `${publicBase()}/api/oauth/callback/${presetKey}`;
  const scopeOf = (environment: { organizationId: string; projectId: string; id: string }) =>
    environmentScope({ ...environment, environmentId: environment.id });

  // The value is a JWE in compact form (base64url and dots), so it needs no cookie encoding.
  const stateCookieOptions = (): CookieOptions => ({
    path: STATE_COOKIE_PATH,
    httpOnly: true,
    sameSite: 'Lax',
    secure: publicBase().startsWith('https:'),
  });
  const stateCookie = (value: string, maxAgeS: number): string =>
    serializeCookie(STATE_COOKIE, value, { ...stateCookieOptions(), maxAgeS });

  /** The redirect to the provider's authorization endpoint with a fresh state and PKCE, sealed in the cookie. */
  async function authorizationRedirect(
    preset: Preset,
    version: IntegrationVersionRow,
    pinned: Omit<StatePayload, 'state' | 'codeVerifier' | 'expiresAt'>,
  ) {
    const ring = deps.keyRing();
    const state = oauth.generateRandomState();
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const payload: StatePayload = {
      ...pinned,
      state,
      codeVerifier,
      expiresAt: clock.now().getTime() + STATE_TTL_SECONDS * 1000,
    };
    const url = new URL(version.provider.authorizationEndpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', version.clientId);
    url.searchParams.set('redirect_uri', redirectUri(preset.key));
    if (version.scopes.length > 0) url.searchParams.set('scope', version.scopes.join(preset.scopeSeparator));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    for (const [key, value] of Object.entries(preset.authorizationParams ?? {}))
      url.searchParams.set(key, value);
    const sealed = await createStateCookieCodec(ring).seal(payload);
    return { location: url.href, setCookie: stateCookie(sealed, STATE_TTL_SECONDS) };
  }

  /**
   * What both callbacks (connect and verify) do with the provider: exchange the code with the pinned version
   * and read the account; a failure as the `exchange_failed` description.
   */
  async function exchangeAndIdentify(
    preset: Preset,
    version: IntegrationVersionRow,
    payload: StatePayload,
    params: URLSearchParams,
  ): Promise<{ result: ExchangeResult; identity: AccountIdentity } | { failure: string }> {
    try {
      const result = await exchangeCode(version, integrations.clientSecret(version), {
        params,
        state: payload.state,
        codeVerifier: payload.codeVerifier,
        redirectUri: redirectUri(payload.presetKey),
        http,
      });
      return { result, identity: await identifyAccount(preset, version, result, http) };
    } catch (error) {
      const { code, description } = describeProviderError(error);
      return { failure: `${code}: ${description}` };
    }
  }

  /**
   * The callback of a verification (`startVerification`): the same user, still holding integrations:manage,
   * exchanges the code with the pinned version and reads the account, which proves the client id, secret,
   * endpoints and redirect URI work. The tokens are then discarded (revoked at the provider when it can) and a
   * verified copy of the pinned version is appended, if it is still the current one: versions are immutable,
   * so "verified" is a new version with the same settings. Audited as `integration.verified`.
   */
  async function verify(
    principal: Principal,
    payload: StatePayload,
    params: URLSearchParams,
    fail: (code: string, description?: string | null) => string,
  ) {
    if (
      !can(principal, 'integrations:manage', { kind: 'organization', organizationId: payload.organizationId })
    ) {
      return fail('forbidden', 'Missing permission integrations:manage');
    }
    const preset = findPreset(payload.presetKey);
    const version = await integrations.getVersion(payload.integrationVersionId);
    if (!preset || !version) return fail('exchange_failed', 'The integration no longer exists');
    const exchanged = await exchangeAndIdentify(preset, version, payload, params);
    if ('failure' in exchanged) return fail('exchange_failed', exchanged.failure);
    const { result, identity } = exchanged;
    const secret = integrations.clientSecret(version);
    const revocation = await revokeAtProvider(
      version,
      secret,
      { accessToken: result.tokens.access_token, refreshToken: result.tokens.refresh_token ?? null },
      http,
    );
    let verifiedVersionId = version.id;
    if (!version.verified) {
      try {
        const record = await integrations.appendVersion(
          payload.organizationId,
          preset,
          {
            clientId: version.clientId,
            clientSecret: secret,
            scopes: version.scopes,
            provider: version.provider,
            verified: true,
          },
          (current) => {
            if (current?.id !== version.id) throw new ApiError('conflict', 'changed');
          },
          async (tx, record) => {
            await recordAuditEvent(tx, {
              organizationId: payload.organizationId,
              action: 'integration.verified',
              actor: principal,
              target: { type: 'integration', id: record.id },
              at: clock.now(),
              metadata: {
                presetKey: preset.key,
                version: record.version.number,
                versionId: record.version.id,
                testedVersionId: version.id,
                accountId: identity.accountId,
                revocation,
              },
            });
          },
        );
        verifiedVersionId = record.version.id;
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'conflict')) throw error;
        return fail(
          'integration_changed',
          'The integration was changed or removed during the verification; verify the current one',
        );
      }
    }
    return withOutcome(payload.returnTo, {
      oauth_status: 'success',
      verified: 'true',
      preset: preset.key,
      integration_version_id: verifiedVersionId,
    });
  }

  return {
    /** The presets an integration can be registered for, with the redirect URI to register at the provider. */
    presets: () =>
      allPresets().map((preset) => ({
        key: preset.key,
        name: preset.name,
        issuerRequired: preset.discovery && !preset.issuer,
        defaultScopes: preset.defaultScopes,
        redirectUri: redirectUri(preset.key),
      })),

    /** Validates the request and answers where to send the browser, with the state cookie to set. */
    async start(principal: Principal, presetKey: string, query: StartQuery) {
      const preset = findPreset(presetKey);
      if (!preset) throw notFound(`OAuth preset ${presetKey}`);
      const returnTo = resolveReturnTo(query.returnTo, deps.consoleUrl(), allowedOrigins);
      const environment = await findEnvironment(
        db,
        principal.organizationId,
        query.projectId,
        query.environmentId,
      );
      if (!environment) {
        return rejectForeignResource(
          deps.foreignResources,
          principal,
          notFound(`Environment ${query.environmentId} of project ${query.projectId}`),
        );
      }
      if (!can(principal, 'projects:operate', scopeOf(environment))) {
        throw forbidden('Missing permission projects:operate');
      }
      const version = await integrations.currentVerifiedVersion(principal.organizationId, preset.key);
      return authorizationRedirect(preset, version, {
        purpose: 'connect',
        organizationId: principal.organizationId,
        userId: principal.userId,
        projectId: environment.projectId,
        environmentId: environment.id,
        presetKey: preset.key,
        integrationVersionId: version.id,
        returnTo,
      });
    },

    /**
     * An owner's (or admin's) test authorization with the integration's current version, verified or not
     * (docs/organization-api.md, "Verify an integration"): the same redirect and state cookie as `start`, for
     * no environment. Its callback keeps no tokens and marks the version verified.
     */
    async startVerification(
      principal: Principal,
      presetKey: string,
      query: { returnTo?: string | undefined },
    ) {
      const preset = findPreset(presetKey);
      if (!preset) throw notFound(`OAuth preset ${presetKey}`);
      const returnTo = resolveReturnTo(query.returnTo, deps.consoleUrl(), allowedOrigins);
      requirePermission(principal, 'integrations:manage');
      const current = await integrations.current(principal.organizationId, preset.key);
      if (!current) throw new ApiError('conflict', `The organization has no integration for ${preset.name}`);
      return authorizationRedirect(preset, current.version, {
        purpose: 'verify',
        organizationId: principal.organizationId,
        userId: principal.userId,
        projectId: '',
        environmentId: '',
        presetKey: preset.key,
        integrationVersionId: current.version.id,
        returnTo,
      });
    },

    /**
     * Completes a flow. Every outcome is a redirect (docs/oauth.md); the caller also clears the state cookie.
     * Only infrastructure failures (database down) throw.
     */
    async callback(
      principal: Principal,
      presetKey: string,
      params: URLSearchParams,
      cookieHeader: string | undefined,
    ) {
      const cookieValue = readCookie(cookieHeader, STATE_COOKIE);
      const payload = await createStateCookieCodec(deps.keyRing()).open(cookieValue);
      if (!payload || payload.presetKey !== presetKey) {
        return withOutcome(new URL('/', deps.consoleUrl()).href, {
          oauth_status: 'error',
          oauth_error: 'invalid_state',
        });
      }
      const fail = (code: FailureCode | string, description?: string | null) =>
        withOutcome(payload.returnTo, {
          oauth_status: 'error',
          oauth_error: code,
          oauth_error_description: description ? description.slice(0, MAX_DESCRIPTION) : undefined,
        });
      const now = clock.now();
      if (now.getTime() >= payload.expiresAt)
        return fail('state_expired', 'The authorization took too long; start again');
      const state = params.get('state');
      if (!state || !safeEqual(state, payload.state))
        return fail('invalid_state', 'The state does not match this browser');

      // Single use: recorded before anything else happens, so a replay can never reach the token endpoint.
      const consumed = await db
        .insert(oauthStates)
        .values({
          stateHash: sha256Hex(payload.state),
          organizationId: payload.organizationId,
          consumedAt: now,
          expiresAt: new Date(payload.expiresAt),
        })
        .onConflictDoNothing()
        .returning({ stateHash: oauthStates.stateHash });
      if (consumed.length === 0) return fail('invalid_state', 'This authorization response was already used');
      // Consumed states matter only until their cookie expires (after that the expiry check refuses them).
      await db.delete(oauthStates).where(lt(oauthStates.expiresAt, new Date(now.getTime() - 60_000)));

      const providerError = params.get('error');
      if (providerError) {
        return fail(
          PROVIDER_ERROR.test(providerError) ? providerError : 'access_denied',
          params.get('error_description'),
        );
      }

      if (principal.organizationId !== payload.organizationId || principal.userId !== payload.userId) {
        return fail('forbidden', 'The flow was started by another user');
      }
      if (payload.purpose === 'verify') return verify(principal, payload, params, fail);
      const environment = await findEnvironment(
        db,
        payload.organizationId,
        payload.projectId,
        payload.environmentId,
      );
      if (!environment) return fail('environment_removed', ENVIRONMENT_REMOVED);
      if (!can(principal, 'projects:operate', environmentScope(payload))) {
        return fail('forbidden', 'Missing permission projects:operate on this environment');
      }
      const preset = findPreset(payload.presetKey);
      const version = await integrations.getVersion(payload.integrationVersionId);
      const active = await integrations.current(payload.organizationId, payload.presetKey);
      if (!preset || !version || !active) return fail('integration_changed', INTEGRATION_REMOVED);

      const exchanged = await exchangeAndIdentify(preset, version, payload, params);
      if ('failure' in exchanged) return fail('exchange_failed', exchanged.failure);
      const { result, identity } = exchanged;
      /**
       * The tokens were issued but will not be kept (the environment or integration went away during the
       * exchange, or the plan is full): revoked at the provider, so no grant outlives the refusal there; the
       * outcome is appended to the description. The secret is the one read before the exchange (a removal
       * has since destroyed the stored one); revoking needs nothing else from the database.
       */
      const discard = async (code: string, description: string) => {
        const revocation = await revokeAtProvider(
          version,
          integrations.clientSecret(version),
          { accessToken: result.tokens.access_token, refreshToken: result.tokens.refresh_token ?? null },
          http,
        );
        return fail(code, `${description} ${REVOCATION_WORDS[revocation.outcome]}`);
      };

      const ring = deps.keyRing();
      const values = {
        integrationVersionId: version.id,
        accountId: identity.accountId,
        accountLabel: identity.accountLabel,
        scopes: grantedScopes(result.tokens.scope, version.scopes),
        status: 'active' as const,
        tokenType: result.tokens.token_type,
        accessTokenCiphertext: ring.encrypt(
          result.tokens.access_token,
          connectionAad(payload, 'access_token'),
        ),
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
      const written = await db.transaction(async (tx): Promise<Refusal | { id: string }> => {
        // Checked again under lock, since the exchange took a while: deleting the environment (or its
        // project) locks it FOR UPDATE and removing the integration locks its row FOR UPDATE, so either
        // that finished first and is seen here, or it waits for this transaction and then finds the new
        // connection (409, or disconnected by its cascade).
        const [stillThere] = await tx
          .select({ id: environments.id })
          .from(environments)
          .where(
            and(
              eq(environments.id, payload.environmentId),
              eq(environments.projectId, payload.projectId),
              eq(environments.organizationId, payload.organizationId),
            ),
          )
          .for('share');
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
      if ('refused' in written) return discard(written.refused, written.description);
      return withOutcome(payload.returnTo, {
        oauth_status: 'success',
        connection_id: written.id,
        preset: payload.presetKey,
      });
    },

    /** The Set-Cookie value that removes the state cookie (sent with every callback outcome). */
    clearStateCookie: () => expiredCookie(STATE_COOKIE, stateCookieOptions()),
  };
}
