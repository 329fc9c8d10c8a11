import { and, desc, eq, max } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import type { Database, Executor, Tx } from '../../db/client.js';
import { ApiError, validationFailed } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import type { KeyRing } from '../../lib/key-ring.js';
import {
  acceptableEndpoint,
  clientSecretAad,
  findPreset,
  type IntegrationRow,
  type IntegrationVersionRow,
  integrations,
  integrationVersions,
  LOOPBACK_PROVIDER_SETTINGS,
  type OAuthHttpOptions,
  type Preset,
  type ProviderEndpoints,
  presetName,
  requestOptions,
} from '../oauth/index.js';
import type { TenancyService } from '../tenancy/index.js';
import type { CreateIntegrationInput, IntegrationRecord } from './integrations.schemas.js';

export interface IntegrationsServiceDeps {
  database: Database;
  tenancy: Pick<TenancyService, 'getOrganization'>;
  keyRing: () => KeyRing;
  http: OAuthHttpOptions;
}

function presentIntegration(row: IntegrationRow, version: IntegrationVersionRow): IntegrationRecord {
  return {
    id: row.id,
    organizationId: row.organizationId,
    presetKey: row.presetKey,
    presetName: findPreset(row.presetKey)?.name ?? row.presetKey,
    version: {
      id: version.id,
      number: version.number,
      clientId: version.clientId,
      scopes: version.scopes,
      issuer: version.provider.issuer,
      authorizationEndpoint: version.provider.authorizationEndpoint,
      tokenEndpoint: version.provider.tokenEndpoint,
      userinfoEndpoint: version.provider.userinfoEndpoint,
      tokenEndpointAuth: version.provider.tokenEndpointAuth,
      verified: version.verified,
      createdAt: version.createdAt.toISOString(),
    },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;

/** Integrations: an organization's own OAuth client for a preset, as a chain of immutable versions. */
export function createIntegrationsService({ database, tenancy, keyRing, http }: IntegrationsServiceDeps) {
  const { db } = database;

  /** Where the provider lives: overrides, else discovery (OpenID presets), else the preset's defaults. */
  async function resolveEndpoints(
    preset: Preset,
    input: Pick<
      CreateIntegrationInput,
      'issuer' | 'authorizationEndpoint' | 'tokenEndpoint' | 'userinfoEndpoint' | 'tokenEndpointAuth'
    >,
  ): Promise<ProviderEndpoints> {
    for (const field of ['issuer', 'authorizationEndpoint', 'tokenEndpoint', 'userinfoEndpoint'] as const) {
      const value = input[field];
      if (value !== undefined && !acceptableEndpoint(value, http)) {
        throw validationFailed(
          field,
          `must be an https URL without credentials or fragment, and not on a private or loopback address (${LOOPBACK_PROVIDER_SETTINGS})`,
        );
      }
    }
    const auth = input.tokenEndpointAuth ?? preset.tokenEndpointAuth;
    const issuer = input.issuer ?? preset.issuer;
    if (preset.discovery) {
      if (!issuer) throw validationFailed('issuer', `preset ${preset.key} needs the provider's issuer URL`);
      const server = await discover(issuer);
      const authorizationEndpoint = input.authorizationEndpoint ?? server.authorization_endpoint;
      const tokenEndpoint = input.tokenEndpoint ?? server.token_endpoint;
      if (!authorizationEndpoint || !tokenEndpoint) {
        throw validationFailed('issuer', 'the discovery document lacks an authorization or token endpoint');
      }
      for (const named of [authorizationEndpoint, tokenEndpoint, server.userinfo_endpoint]) {
        if (named !== undefined && !acceptableEndpoint(named, http)) {
          throw validationFailed(
            'issuer',
            `the discovery document names an endpoint Cadre may not use (${LOOPBACK_PROVIDER_SETTINGS})`,
          );
        }
      }
      const supported = server.token_endpoint_auth_methods_supported;
      return {
        issuer: server.issuer,
        authorizationEndpoint,
        tokenEndpoint,
        userinfoEndpoint: input.userinfoEndpoint ?? server.userinfo_endpoint ?? null,
        tokenEndpointAuth:
          input.tokenEndpointAuth ??
          (supported && !supported.includes(auth) && supported.includes('client_secret_post')
            ? 'client_secret_post'
            : auth),
        issParameterSupported: server.authorization_response_iss_parameter_supported === true,
        revocationEndpoint:
          server.revocation_endpoint && acceptableEndpoint(server.revocation_endpoint, http)
            ? server.revocation_endpoint
            : null,
      };
    }
    const authorizationEndpoint = input.authorizationEndpoint ?? preset.authorizationEndpoint;
    const tokenEndpoint = input.tokenEndpoint ?? preset.tokenEndpoint;
    if (!authorizationEndpoint || !tokenEndpoint) throw new Error(`preset ${preset.key} lacks endpoints`);
    return {
      issuer: issuer ?? null,
      authorizationEndpoint,
      tokenEndpoint,
      userinfoEndpoint: input.userinfoEndpoint ?? preset.userinfoEndpoint ?? null,
      tokenEndpointAuth: auth,
      issParameterSupported: false,
      revocationEndpoint: preset.revocationEndpoint ?? null,
    };
  }

  async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
    try {
      const url = new URL(issuer);
      const response = await oauth.discoveryRequest(url, { ...requestOptions(http), algorithm: 'oidc' });
      return await oauth.processDiscoveryResponse(url, response);
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'unknown error';
      throw validationFailed('issuer', `OpenID discovery failed: ${reason}`);
    }
  }

  /**
   * Appends a version to the organization's integration for the preset (creating the integration first), and
   * makes it current. `guard` runs under the integration's row lock, with its current version (null when
   * there is none or it was removed), and may refuse by throwing; `within` runs in the same transaction.
   */
  async function appendVersion(
    organizationId: string,
    preset: Preset,
    fields: {
      clientId: string;
      clientSecret: string;
      scopes: string[];
      provider: ProviderEndpoints;
      verified: boolean;
    },
    guard?: (current: IntegrationVersionRow | null) => void,
    within?: (tx: Tx, record: IntegrationRecord, previous: IntegrationVersionRow | null) => Promise<void>,
  ): Promise<IntegrationRecord> {
    const ring = keyRing();
    return db.transaction(async (tx) => {
      await tx
        .insert(integrations)
        .values({ id: newId(), organizationId, presetKey: preset.key })
        .onConflictDoNothing({ target: [integrations.organizationId, integrations.presetKey] });
      // The row lock serialises concurrent saves so version numbers stay dense and unique.
      const [integration] = await tx
        .select()
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), eq(integrations.presetKey, preset.key)))
        .for('update');
      const current = integration!.currentVersionId
        ? ((await getVersion(integration!.currentVersionId, tx)) ?? null)
        : null;
      guard?.(current);
      const [latest] = await tx
        .select({ number: max(integrationVersions.number) })
        .from(integrationVersions)
        .where(eq(integrationVersions.integrationId, integration!.id));
      const versionId = newId();
      const [version] = await tx
        .insert(integrationVersions)
        .values({
          id: versionId,
          integrationId: integration!.id,
          organizationId,
          presetKey: preset.key,
          number: (latest?.number ?? 0) + 1,
          clientId: fields.clientId,
          clientSecretCiphertext: ring.encrypt(fields.clientSecret, clientSecretAad(versionId)),
          scopes: fields.scopes,
          provider: fields.provider,
          verified: fields.verified,
        })
        .returning();
      const [updated] = await tx
        .update(integrations)
        .set({ currentVersionId: versionId, updatedAt: new Date() })
        .where(eq(integrations.id, integration!.id))
        .returning();
      const record = presentIntegration(updated!, version!);
      await within?.(tx, record, current);
      return record;
    });
  }

  async function getVersion(versionId: string, executor: Executor = db) {
    const [version] = await executor
      .select()
      .from(integrationVersions)
      .where(eq(integrationVersions.id, versionId));
    return version;
  }

  const clientSecret = (version: IntegrationVersionRow) =>
    keyRing().decrypt(version.clientSecretCiphertext, clientSecretAad(version.id));

  return {
    resolveEndpoints,
    appendVersion,

    /** The integration of a preset with its current version; undefined when there is none or it was removed. */
    async current(organizationId: string, presetKey: string, executor: Executor = db) {
      const [row] = await executor
        .select({ integration: integrations, version: integrationVersions })
        .from(integrations)
        .innerJoin(integrationVersions, eq(integrationVersions.id, integrations.currentVersionId))
        .where(and(eq(integrations.organizationId, organizationId), eq(integrations.presetKey, presetKey)));
      return row;
    },

    /** Creates the integration, or appends a version when the organization already has one for the preset. */
    async save(organizationIdOrSlug: string, input: CreateIntegrationInput): Promise<IntegrationRecord> {
      const organization = await tenancy.getOrganization(organizationIdOrSlug);
      const preset = findPreset(input.presetKey);
      if (!preset) throw validationFailed('presetKey', `unknown preset ${input.presetKey}`);
      const provider = await resolveEndpoints(preset, input);
      return appendVersion(organization.id, preset, {
        clientId: input.clientId,
        clientSecret: input.clientSecret,
        scopes: input.scopes ?? preset.defaultScopes,
        provider,
        verified: input.verified,
      });
    },

    async list(organizationIdOrSlug: string): Promise<IntegrationRecord[]> {
      const organization = await tenancy.getOrganization(organizationIdOrSlug);
      const rows = await db
        .select({ integration: integrations, version: integrationVersions })
        .from(integrations)
        .innerJoin(integrationVersions, eq(integrationVersions.id, integrations.currentVersionId))
        .where(eq(integrations.organizationId, organization.id))
        .orderBy(desc(integrations.createdAt));
      return rows.map((row) => presentIntegration(row.integration, row.version));
    },

    /** The version a new flow would use; 409 when there is none or it is not verified. */
    async currentVerifiedVersion(organizationId: string, presetKey: string): Promise<IntegrationVersionRow> {
      const [row] = await db
        .select({ version: integrationVersions })
        .from(integrations)
        .innerJoin(integrationVersions, eq(integrationVersions.id, integrations.currentVersionId))
        .where(and(eq(integrations.organizationId, organizationId), eq(integrations.presetKey, presetKey)));
      if (!row) {
        throw new ApiError('conflict', `The organization has no integration for ${presetName(presetKey)}`);
      }
      if (!row.version.verified) {
        throw new ApiError('conflict', `The ${presetName(presetKey)} integration is not verified`);
      }
      return row.version;
    },

    getVersion: (versionId: string, executor: Executor = db): Promise<IntegrationVersionRow | undefined> =>
      getVersion(versionId, executor),

    clientSecret,
  };
}
