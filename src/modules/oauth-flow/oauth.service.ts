import { lt } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ApiError, forbidden, notFound } from '../../http/errors.js';
import { type ForeignResourceGuard, rejectForeignResource } from '../../http/rate-limit/rate-limit.js';
import type { Clock } from '../../lib/clock.js';
import type { KeyRing } from '../../lib/key-ring.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { can, type Principal, requirePermission } from '../auth/index.js';
import type { PlanCheck } from '../billing/index.js';
import { environmentScope, type RevocationOutcome, revokeAtProvider } from '../connections/index.js';
import type { IntegrationsService } from '../integrations/index.js';
import { allPresets, findPreset, type OAuthHttpOptions } from '../oauth/index.js';
import { findEnvironment } from '../tenancy/index.js';
import { createProviderSteps } from './authorization.js';
import { createConnectionStore, ENVIRONMENT_REMOVED, INTEGRATION_REMOVED } from './connection-store.js';
import { oauthStates } from './oauth-flow.tables.js';
import { resolveReturnTo, withOutcome } from './return-to.js';
import { createVerification } from './verification.js';

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

const REVOCATION_WORDS: Record<RevocationOutcome['outcome'], string> = {
  revoked: 'The tokens the provider issued were revoked there.',
  not_supported: 'The provider offers no revocation: remove the grant in its settings.',
  failed: 'Revoking the tokens the provider issued failed: remove the grant in its settings.',
};

const PROVIDER_ERROR = /^[\x21-\x7e]{1,64}$/;
const MAX_DESCRIPTION = 300;

export type OAuthService = ReturnType<typeof createOAuthService>;

/**
 * The connect flow (an environment's connection to a provider) and the verification of an integration: where
 * to send the browser, and what the callback makes of the provider's answer (docs/oauth.md). The trips to the
 * provider are `authorization.ts`, keeping a connection `connection-store.ts`, a verification's end
 * `verification.ts`.
 */
export function createOAuthService(deps: OAuthServiceDeps) {
  const { database, clock, integrations, http } = deps;
  const { db } = database;
  const allowedOrigins = deps.allowedReturnOrigins.map((origin) => new URL(origin).origin);
  const scopeOf = (environment: { organizationId: string; projectId: string; id: string }) =>
    environmentScope({ ...environment, environmentId: environment.id });
  const steps = createProviderSteps({
    clock,
    integrations,
    keyRing: deps.keyRing,
    http,
    publicUrl: deps.publicUrl,
  });
  const { redirectUri, authorizationRedirect, exchangeAndIdentify } = steps;
  const verify = createVerification({ clock, integrations, http, steps });
  const storeConnection = createConnectionStore({
    database,
    keyRing: deps.keyRing,
    planLimits: deps.planLimits,
  });

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
      const payload = await steps.openState(cookieHeader);
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
      const { result } = exchanged;
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

      const written = await storeConnection(principal, payload, version, exchanged, now);
      if ('refused' in written) return discard(written.refused, written.description);
      return withOutcome(payload.returnTo, {
        oauth_status: 'success',
        connection_id: written.id,
        preset: payload.presetKey,
      });
    },

    /** The Set-Cookie value that removes the state cookie (sent with every callback outcome). */
    clearStateCookie: steps.clearStateCookie,
  };
}
