import { ApiError } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { recordAuditEvent } from '../audit/index.js';
import { can, type Principal } from '../auth/index.js';
import { revokeAtProvider } from '../connections/index.js';
import type { IntegrationsService } from '../integrations/index.js';
import { findPreset, type OAuthHttpOptions } from '../oauth/index.js';
import type { ProviderSteps } from './authorization.js';
import { withOutcome } from './return-to.js';
import type { StatePayload } from './state-cookie.js';

export interface VerificationDeps {
  clock: Clock;
  integrations: Pick<IntegrationsService, 'getVersion' | 'clientSecret' | 'appendVersion'>;
  http: OAuthHttpOptions;
  steps: Pick<ProviderSteps, 'exchangeAndIdentify'>;
}

/** A callback's failure: the redirect to `returnTo` with the error code and description. */
type Fail = (code: string, description?: string | null) => string;

/** Completes an owner's test authorization of an integration (the `verify` purpose of the state cookie). */
export function createVerification(deps: VerificationDeps) {
  const { clock, integrations, http } = deps;
  const { exchangeAndIdentify } = deps.steps;

  /**
   * The callback of a verification (`startVerification`): the same user, still holding integrations:manage,
   * exchanges the code with the pinned version and reads the account, which proves the client id, secret,
   * endpoints and redirect URI work. The tokens are then discarded (revoked at the provider when it can) and a
   * verified copy of the pinned version is appended, if it is still the current one: versions are immutable,
   * so "verified" is a new version with the same settings. Audited as `integration.verified`.
   */
  async function verify(principal: Principal, payload: StatePayload, params: URLSearchParams, fail: Fail) {
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

  return verify;
}
