import { and, asc, eq } from 'drizzle-orm';
import type { Database, Tx } from '../../db/client.js';
import { ApiError, notFound, validationFailed } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { KeyRing } from '../../lib/key-ring.js';
import { type AuditMetadata, recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import {
  type ConnectionRow,
  clientSecretAad,
  connections,
  findPreset,
  integrations,
  integrationVersions,
  presetName,
} from '../oauth/index.js';
import { environments, projects, type TenancyService } from '../tenancy/index.js';
import type { RegisterIntegrationInput, UpdateIntegrationInput } from './integrations.schemas.js';
import type { IntegrationsService } from './integrations.service.js';

/**
 * Disconnects a locked connection in the caller's transaction (revoked at the provider, deleted, audited): the
 * connections module's, handed over by the composition, since connections are built on integrations.
 */
export type DisconnectRow = (
  tx: Tx,
  row: ConnectionRow,
  actor: Principal,
  cause: AuditMetadata,
) => Promise<void>;

export interface IntegrationManagementDeps {
  database: Database;
  clock: Clock;
  tenancy: Pick<TenancyService, 'getOrganization'>;
  integrations: IntegrationsService;
  disconnectRow: DisconnectRow;
  keyRing: () => KeyRing;
}

export type IntegrationManagement = ReturnType<typeof createIntegrationManagement>;

const notRegistered = (presetKey: string) => notFound(`Integration ${presetKey}`);

/**
 * Owners and admins running their organization's OAuth integrations (`integrations:manage`;
 * docs/organization-api.md, "Integrations"): register one for a preset, update it (a new version: a rotated
 * client secret, other scopes or endpoints), remove it. Every new version starts unverified: it becomes
 * verified only through one successful authorization (`GET /api/oauth/verify/{presetKey}`, the oauth-flow module),
 * or by the operator's override (admin API). The client secret is write-only, encrypted at rest.
 */
export function createIntegrationManagement(deps: IntegrationManagementDeps) {
  const { database, clock, integrations: service } = deps;
  const { db } = database;

  /** The caller's own organization by id or slug, then the permission; another one reads as absent. */
  async function ownOrganization(principal: Principal, idOrSlug: string) {
    const organization = await deps.tenancy.getOrganization(idOrSlug).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'not_found') return undefined;
      throw error;
    });
    if (!organization || organization.id !== principal.organizationId) {
      throw notFound(`Organization ${idOrSlug}`);
    }
    requirePermission(principal, 'integrations:manage', {
      kind: 'organization',
      organizationId: organization.id,
    });
    return organization;
  }

  /** Records the new version's event in its transaction (the `within` step of appendVersion). */
  const audited =
    (principal: Principal, action: string) =>
    async (
      tx: Tx,
      record: { id: string; presetKey: string; version: { id: string; number: number; clientId: string } },
      previous: { id: string } | null,
    ) => {
      await recordAuditEvent(tx, {
        organizationId: principal.organizationId,
        action,
        actor: principal,
        target: { type: 'integration', id: record.id },
        at: clock.now(),
        metadata: {
          presetKey: record.presetKey,
          version: record.version.number,
          versionId: record.version.id,
          clientId: record.version.clientId,
          ...(previous ? { previousVersionId: previous.id } : {}),
        },
      });
    };

  return {
    /** 201 with the new integration (unverified); 409 when the organization already has one for the preset. */
    async register(principal: Principal, idOrSlug: string, input: RegisterIntegrationInput) {
      const organization = await ownOrganization(principal, idOrSlug);
      const preset = findPreset(input.presetKey);
      if (!preset) throw validationFailed('presetKey', `unknown preset ${input.presetKey}`);
      const provider = await service.resolveEndpoints(preset, input);
      return service.appendVersion(
        organization.id,
        preset,
        {
          clientId: input.clientId,
          clientSecret: input.clientSecret,
          scopes: input.scopes ?? preset.defaultScopes,
          provider,
          verified: false,
        },
        (current) => {
          if (current) {
            throw new ApiError(
              'conflict',
              `The organization already has an integration for ${preset.name}: update or remove it`,
            );
          }
        },
        audited(principal, 'integration.created'),
      );
    },

    /**
     * A new version from the current one and the changes given (the client secret is kept unless a new one is
     * sent, and must be sent again when the endpoints change). Endpoints are resolved again (discovery, for OpenID presets) only when the issuer, an endpoint or
     * the client authentication changes. The new version is unverified until verified again.
     */
    async update(principal: Principal, idOrSlug: string, presetKey: string, patch: UpdateIntegrationInput) {
      const organization = await ownOrganization(principal, idOrSlug);
      const preset = findPreset(presetKey);
      const existing = preset && (await service.current(organization.id, preset.key));
      if (!preset || !existing) throw notRegistered(presetKey);
      const version = existing.version;
      const endpointsChange =
        patch.issuer !== undefined ||
        patch.authorizationEndpoint !== undefined ||
        patch.tokenEndpoint !== undefined ||
        patch.userinfoEndpoint !== undefined ||
        patch.tokenEndpointAuth !== undefined;
      // The stored secret never goes to endpoints it was not registered for: whoever may edit the integration
      // but was never given the secret could otherwise point the token endpoint at a server of theirs.
      if (endpointsChange && patch.clientSecret === undefined) {
        throw validationFailed(
          'clientSecret',
          'is required again when the issuer, an endpoint or the client authentication changes',
        );
      }
      const provider = endpointsChange
        ? await service.resolveEndpoints(preset, {
            issuer: patch.issuer ?? version.provider.issuer ?? undefined,
            // A new issuer is discovered afresh; otherwise the endpoints not changed stay as they were.
            ...(patch.issuer !== undefined && preset.discovery
              ? {}
              : {
                  authorizationEndpoint: version.provider.authorizationEndpoint,
                  tokenEndpoint: version.provider.tokenEndpoint,
                  userinfoEndpoint: version.provider.userinfoEndpoint ?? undefined,
                }),
            ...(patch.authorizationEndpoint ? { authorizationEndpoint: patch.authorizationEndpoint } : {}),
            ...(patch.tokenEndpoint ? { tokenEndpoint: patch.tokenEndpoint } : {}),
            ...(patch.userinfoEndpoint ? { userinfoEndpoint: patch.userinfoEndpoint } : {}),
            tokenEndpointAuth: patch.tokenEndpointAuth ?? version.provider.tokenEndpointAuth,
          })
        : version.provider;
      return service.appendVersion(
        organization.id,
        preset,
        {
          clientId: patch.clientId ?? version.clientId,
          clientSecret: patch.clientSecret ?? service.clientSecret(version),
          scopes: patch.scopes ?? version.scopes,
          provider,
          verified: false,
        },
        (current) => {
          if (!current) throw notRegistered(presetKey);
          if (current.id !== version.id) {
            throw new ApiError(
              'conflict',
              `The ${preset.name} integration changed meanwhile: read it and retry`,
            );
          }
        },
        audited(principal, 'integration.updated'),
      );
    },

    /**
     * Removes the integration: no new flow can use it, and every version's client secret is destroyed (each
     * ciphertext replaced by one of the empty string, so key rotation still reads every row). Connections
     * made with it answer 409 naming them (`details`: `connections.<id>`), unless `cascade` disconnects them
     * (tokens revoked at the provider) first. Registering the preset again later appends a new version.
     */
    async remove(principal: Principal, idOrSlug: string, presetKey: string, cascade: boolean) {
      const organization = await ownOrganization(principal, idOrSlug);
      const ring = deps.keyRing();
      await db.transaction(async (tx) => {
        const [integration] = await tx
          .select()
          .from(integrations)
          .where(and(eq(integrations.organizationId, organization.id), eq(integrations.presetKey, presetKey)))
          .for('update');
        if (!integration?.currentVersionId) throw notRegistered(presetKey);
        const rows = await tx
          .select({
            connection: connections,
            environmentName: environments.name,
            projectName: projects.name,
          })
          .from(connections)
          .innerJoin(integrationVersions, eq(integrationVersions.id, connections.integrationVersionId))
          .innerJoin(environments, eq(environments.id, connections.environmentId))
          .innerJoin(projects, eq(projects.id, connections.projectId))
          .where(eq(integrationVersions.integrationId, integration.id))
          .orderBy(asc(connections.createdAt), asc(connections.id))
          .for('update', { of: connections });
        if (rows.length > 0 && !cascade) {
          throw new ApiError(
            'conflict',
            `The ${presetName(presetKey)} integration is used by ${rows.length} connection(s); disconnect them, or remove with cascade=true`,
            rows.map(({ connection: c, environmentName, projectName }) => ({
              path: `connections.${c.id}`,
              message: `${presetName(c.presetKey)} ${c.accountLabel ?? c.accountId} (${environmentName}, project “${projectName}”)`,
            })),
          );
        }
        const cause = { type: 'integration', id: integration.id };
        for (const { connection } of rows) await deps.disconnectRow(tx, connection, principal, cause);
        const versions = await tx
          .select({ id: integrationVersions.id })
          .from(integrationVersions)
          .where(eq(integrationVersions.integrationId, integration.id));
        for (const version of versions) {
          await tx
            .update(integrationVersions)
            .set({ clientSecretCiphertext: ring.encrypt('', clientSecretAad(version.id)) })
            .where(eq(integrationVersions.id, version.id));
        }
        await tx
          .update(integrations)
          .set({ currentVersionId: null, updatedAt: clock.now() })
          .where(eq(integrations.id, integration.id));
        await recordAuditEvent(tx, {
          organizationId: organization.id,
          action: 'integration.removed',
          actor: principal,
          target: { type: 'integration', id: integration.id },
          at: clock.now(),
          metadata: { presetKey, connections: rows.map(({ connection }) => connection.id) },
        });
      });
    },
  };
}
