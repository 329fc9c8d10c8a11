import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ApiError, notFound, serviceUnavailable } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { KeyRing } from '../../lib/key-ring.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import type { TenancyService } from '../tenancy/index.js';
import type { DiscoveryCache } from './discovery-cache.js';
import type { EnforcementInput, ProviderInput, ProviderRecord } from './provider.schemas.js';
import { type SsoProviderRow, ssoProviders } from './sso.tables.js';

export interface ProviderServiceDeps {
  database: Database;
  clock: Clock;
  /** Encrypts the client secret; without one, single sign-on answers 503 (docs/sso.md). */
  keyRing: KeyRing | undefined;
  /** The providers' discovery documents: read afresh when the owner saves the provider, forgotten on removal. */
  discovery: Pick<DiscoveryCache, 'refresh' | 'forget'>;
  tenancy: Pick<TenancyService, 'getMembership' | 'organizationSlug'>;
  /** Cadre's public origin: the redirect URI the provider sends browsers back to. */
  publicUrl: () => string;
}

export type ProviderService = ReturnType<typeof createProviderService>;

/** The ciphertext is bound to its organization: copied into another row, it fails to decrypt. */
export const secretAad = (organizationId: string) => `sso_provider:${organizationId}:client_secret`;

const callbackPath = '/auth/sso/callback';

/**
 * An organization's identity provider (docs/sso.md, "The provider"): registered by the owner with a
 * write-only client secret and checked by discovery at once; enforcement only after a successful test sign-in.
 */
export function createProviderService(deps: ProviderServiceDeps) {
  const { db } = deps.database;
  const origin = () => deps.publicUrl().replace(/\/$/, '');

  function keyRing(): KeyRing {
    if (!deps.keyRing) {
      throw serviceUnavailable(
        'Single sign-on is not configured: set CADRE_ENCRYPTION_KEYS',
        3600,
        'not_configured',
      );
    }
    return deps.keyRing;
  }

  async function row(organizationId: string): Promise<SsoProviderRow | undefined> {
    const [found] = await db
      .select()
      .from(ssoProviders)
      .where(eq(ssoProviders.organizationId, organizationId));
    return found;
  }

  async function present(found: SsoProviderRow): Promise<ProviderRecord> {
    const slug = await deps.tenancy.organizationSlug(found.organizationId);
    return {
      issuer: found.issuer,
      clientId: found.clientId,
      clientSecretSet: true,
      groupsClaim: found.groupsClaim,
      sessionMaxAgeSeconds: found.sessionMaxAgeSeconds,
      redirectUri: `${origin()}${callbackPath}`,
      signInUrl: `${origin()}/auth/sso/start?organization=${encodeURIComponent(slug ?? found.organizationId)}`,
      testedAt: found.testedAt?.toISOString() ?? null,
      enforced: found.enforced,
      breakGlassUserIds: found.breakGlassUserIds,
      updatedAt: found.updatedAt.toISOString(),
    };
  }

  async function own(principal: Principal) {
    requirePermission(principal, 'organization:manage');
    const found = await row(principal.organizationId);
    if (!found) throw notFound('Single sign-on provider');
    return found;
  }

  return {
    /** The provider and its decrypted secret, for a sign-in (undefined: the organization has none). */
    async forSignIn(organizationId: string) {
      const found = await row(organizationId);
      if (!found) return undefined;
      return {
        ...found,
        clientSecret: keyRing().decrypt(found.clientSecretCiphertext, secretAad(organizationId)),
      };
    },

    redirectUri: () => `${origin()}${callbackPath}`,

    async get(principal: Principal) {
      return present(await own(principal));
    },

    /**
     * Registers or changes the provider. Discovery runs first (through the outbound guard): a provider that
     * does not answer as an OpenID provider is refused (422 at `issuer`). A new issuer or client clears the
     * test sign-in and turns enforcement off: it must be proven again.
     */
    async put(principal: Principal, input: ProviderInput) {
      requirePermission(principal, 'organization:manage');
      const ring = keyRing();
      const before = await row(principal.organizationId);
      const sameClient = before?.issuer === input.issuer && before.clientId === input.clientId;
      if (!input.clientSecret && !sameClient) {
        throw new ApiError('validation_failed', 'Request validation failed', [
          { path: 'clientSecret', message: 'is required for a new issuer or client' },
        ]);
      }
      try {
        await deps.discovery.refresh(input.issuer);
      } catch (error) {
        throw new ApiError('validation_failed', 'Request validation failed', [
          {
            path: 'issuer',
            message: `discovery failed: ${error instanceof Error ? error.message : 'unknown'}`,
          },
        ]);
      }
      const at = deps.clock.now();
      const values = {
        organizationId: principal.organizationId,
        issuer: input.issuer,
        clientId: input.clientId,
        clientSecretCiphertext: input.clientSecret
          ? ring.encrypt(input.clientSecret, secretAad(principal.organizationId))
          : before!.clientSecretCiphertext,
        groupsClaim: input.groupsClaim,
        sessionMaxAgeSeconds: input.sessionMaxAgeSeconds,
        testedAt: sameClient ? (before?.testedAt ?? null) : null,
        enforced: sameClient ? (before?.enforced ?? false) : false,
        breakGlassUserIds: before?.breakGlassUserIds ?? [],
        updatedAt: at,
        updatedByUserId: principal.userId,
      };
      const written = await db.transaction(async (tx) => {
        const [saved] = await tx
          .insert(ssoProviders)
          .values(values)
          .onConflictDoUpdate({ target: ssoProviders.organizationId, set: values })
          .returning();
        await recordAuditEvent(tx, {
          organizationId: principal.organizationId,
          action: before ? 'sso.provider_updated' : 'sso.provider_created',
          actor: principal,
          target: { type: 'sso_provider', id: principal.organizationId },
          at,
          metadata: {
            issuer: input.issuer,
            clientId: input.clientId,
            secretChanged: input.clientSecret !== undefined,
            ...(before && !sameClient ? { testCleared: true } : {}),
          },
        });
        return saved!;
      });
      return present(written);
    },

    async remove(principal: Principal) {
      const found = await own(principal);
      await db.transaction(async (tx) => {
        await tx.delete(ssoProviders).where(eq(ssoProviders.organizationId, principal.organizationId));
        await recordAuditEvent(tx, {
          organizationId: principal.organizationId,
          action: 'sso.provider_removed',
          actor: principal,
          target: { type: 'sso_provider', id: principal.organizationId },
          at: deps.clock.now(),
          metadata: { issuer: found.issuer, clientId: found.clientId },
        });
      });
      deps.discovery.forget(found.issuer);
    },

    /**
     * Turns enforcement on or off and names the break-glass owners. On needs a successful test sign-in of
     * the current issuer and client (409 otherwise); break-glass users must be owners (422).
     */
    async setEnforcement(principal: Principal, input: EnforcementInput) {
      const found = await own(principal);
      if (input.enforced && !found.testedAt) {
        throw new ApiError(
          'conflict',
          'Sign in once through the provider as a test (POST /api/v1/sso/provider/test) before enforcing it',
        );
      }
      const ids = [...new Set(input.breakGlassUserIds)];
      for (const [index, userId] of ids.entries()) {
        const membership = await deps.tenancy.getMembership(principal.organizationId, userId);
        if (membership?.role !== 'owner') {
          throw new ApiError('validation_failed', 'Request validation failed', [
            { path: `breakGlassUserIds.${index}`, message: 'is not an owner of this organization' },
          ]);
        }
      }
      const at = deps.clock.now();
      const saved = await db.transaction(async (tx) => {
        const [updated] = await tx
          .update(ssoProviders)
          .set({
            enforced: input.enforced,
            breakGlassUserIds: ids,
            updatedAt: at,
            updatedByUserId: principal.userId,
          })
          .where(eq(ssoProviders.organizationId, principal.organizationId))
          .returning();
        await recordAuditEvent(tx, {
          organizationId: principal.organizationId,
          action: 'sso.enforcement_changed',
          actor: principal,
          target: { type: 'sso_provider', id: principal.organizationId },
          at,
          metadata: {
            from: { enforced: found.enforced, breakGlassUserIds: found.breakGlassUserIds },
            to: { enforced: input.enforced, breakGlassUserIds: ids },
          },
        });
        return updated!;
      });
      return present(saved);
    },

    /** Records a successful test sign-in (the callback of a `test` flow). */
    async markTested(organizationId: string, userId: string | null, subject: string) {
      const at = deps.clock.now();
      await db.transaction(async (tx) => {
        await tx
          .update(ssoProviders)
          .set({ testedAt: at })
          .where(eq(ssoProviders.organizationId, organizationId));
        await recordAuditEvent(tx, {
          organizationId,
          action: 'sso.test_succeeded',
          actor: { kind: 'system', userId },
          target: { type: 'sso_provider', id: organizationId },
          at,
          metadata: { subject },
        });
      });
    },
  };
}
