import { and, desc, eq, gt, inArray, lt } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { notFound, serviceUnavailable, validationFailed } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { randomBase62, sha256Hex } from '../../lib/secrets.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import type { SessionsService } from '../sessions/index.js';
import type { TenancyService } from '../tenancy/index.js';
import {
  groupsOf,
  newCodeVerifier,
  newNonce,
  newRandomState,
  type OidcClient,
  SsoFailure,
} from './oidc-client.js';
import type { ProviderService } from './provider.service.js';
import type { RoleMappingsService } from './role-mappings.service.js';
import { ssoSignIns } from './sso.tables.js';

/** The organization an address at a verified domain belongs to (the domains module's answer). */
export interface VerifiedDomains {
  verifiedOrganizationFor(
    emailOrDomain: string,
  ): Promise<{ organizationId: string; domain: string } | undefined>;
}

export interface SignInServiceDeps {
  database: Database;
  clock: Clock;
  oidc: Pick<OidcClient, 'discover' | 'authorizationUrl' | 'complete'>;
  providers: Pick<ProviderService, 'forSignIn' | 'redirectUri' | 'markTested'>;
  roleMappings: Pick<RoleMappingsService, 'roleFor'>;
  domains: VerifiedDomains;
  tenancy: Pick<
    TenancyService,
    'getOrganization' | 'findUserByEmail' | 'getMembership' | 'addMember' | 'setRole'
  >;
  sessions: Pick<SessionsService, 'startSession'>;
  /** The console's origin: return paths are resolved against it and must stay on it. */
  consoleUrl: () => string;
}

export type SignInService = ReturnType<typeof createSignInService>;

/** How long a sign-in may take at the provider. */
const SIGN_IN_TTL_MS = 10 * 60_000;

/**
 * Pending sign-ins kept per organization: starts from many addresses (each within its own budget) could
 * otherwise grow the table without bound for ten minutes at a time. Past it the oldest starts are dropped;
 * their callbacks answer `invalid_state` and the person starts again.
 */
export const PENDING_SIGN_INS_PER_ORGANIZATION = 1_000;

/** A failed sign-in, told to the sign-in page as `sso_error=<code>`. */
export class SignInRefused extends Error {
  override name = 'SignInRefused';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A path of the console to come back to: relative only, resolved on the console's origin and staying on it
 * (`//evil.test`, `/\evil.test`, controls and `/..//x` are refused), so the flow is never an open redirect.
 */
function returnPath(value: string | undefined, consoleUrl: string, fallback: string): string {
  if (value === undefined || value === '') return fallback;
  const refuse = () => validationFailed('returnTo', 'must be a path of the console, such as /settings');
  if (value.length > 2048 || !value.startsWith('/') || value.startsWith('//')) throw refuse();
  if ([...value].some((char) => char.charCodeAt(0) <= 0x20 || char.charCodeAt(0) === 0x7f || char === '\\')) {
    throw refuse();
  }
  const resolved = new URL(value, consoleUrl);
  if (resolved.origin !== new URL(consoleUrl).origin || resolved.pathname.startsWith('//')) throw refuse();
  return `${resolved.pathname}${resolved.search}`;
}

/**
 * Signing in through an organization's identity provider (docs/sso.md, "Signing in"): the start (by email
 * at a verified domain, or by the organization's own link), the callback with every check of the ID token,
 * the account made or linked, the role the mapping gives, and a console session as long as the organization
 * allows.
 */
export function createSignInService(deps: SignInServiceDeps) {
  const { db } = deps.database;

  async function begin(
    organizationId: string,
    purpose: 'sign_in' | 'test',
    returnTo: string,
    startedByUserId: string | null,
    loginHint?: string,
  ) {
    const provider = await deps.providers.forSignIn(organizationId);
    if (!provider) throw notFound('Single sign-on for this organization');
    const as = await deps.oidc.discover(provider.issuer).catch((error: unknown) => {
      if (error instanceof SsoFailure) {
        throw serviceUnavailable(`The identity provider: ${error.message}`, 60, 'sso_provider');
      }
      throw error;
    });
    const state = newRandomState();
    const nonce = newNonce();
    const codeVerifier = newCodeVerifier();
    const browser = randomBase62(43);
    const now = deps.clock.now();
    // Expired sign-ins go as new ones come: nothing else needs them.
    await db.delete(ssoSignIns).where(lt(ssoSignIns.expiresAt, now));
    await db.insert(ssoSignIns).values({
      stateDigest: sha256Hex(state),
      organizationId,
      purpose,
      browserDigest: sha256Hex(browser),
      codeVerifier,
      nonce,
      returnTo,
      startedByUserId,
      expiresAt: new Date(now.getTime() + SIGN_IN_TTL_MS),
    });
    const beyondCap = db
      .select({ stateDigest: ssoSignIns.stateDigest })
      .from(ssoSignIns)
      .where(eq(ssoSignIns.organizationId, organizationId))
      .orderBy(desc(ssoSignIns.expiresAt))
      .offset(PENDING_SIGN_INS_PER_ORGANIZATION);
    await db.delete(ssoSignIns).where(inArray(ssoSignIns.stateDigest, beyondCap));
    const authorizationUrl = await deps.oidc.authorizationUrl(as, provider.clientId, {
      redirectUri: deps.providers.redirectUri(),
      state,
      nonce,
      codeVerifier,
      maxAgeSeconds: provider.sessionMaxAgeSeconds,
      ...(loginHint ? { loginHint } : {}),
    });
    return { authorizationUrl, browser };
  }

  /** The person's account and role in the organization, made or brought in line with the provider's answer. */
  async function memberFor(
    organizationId: string,
    email: string,
    name: string | undefined,
    groups: string[],
  ) {
    const role = await deps.roleMappings.roleFor(organizationId, groups);
    const actor = { kind: 'system' as const };
    const existing = await deps.tenancy.findUserByEmail(email);
    const membership = existing && (await deps.tenancy.getMembership(organizationId, existing.id));
    if (!existing || !membership) {
      // An account whose email was never proven is taken over (its credentials reset, audited), as the
      // invitation link's proof does: the provider and the verified domain prove the address now.
      const { user } = await deps.tenancy.addMember(
        organizationId,
        { email, role, ...(name ? { name } : {}), unverifiedAccount: 'reset' },
        actor,
      );
      return user.id;
    }
    // Ownership is never given or taken by the provider (docs/sso.md, "Role mapping").
    if (membership.role !== 'owner' && membership.role !== role) {
      await deps.tenancy.setRole(organizationId, existing.id, role, actor);
    }
    return existing.id;
  }

  return {
    /**
     * Starts a sign-in: by `email` (its domain must be an organization's verified domain) or by the
     * organization's id or slug (its sign-in link). Answers where to send the browser and the value of the
     * cookie that binds the callback to this browser.
     */
    async start(input: {
      email?: string | undefined;
      organization?: string | undefined;
      returnTo?: string | undefined;
    }) {
      const path = returnPath(input.returnTo, deps.consoleUrl(), '/');
      if (input.email) {
        const email = input.email.trim().toLowerCase();
        const routed = await deps.domains.verifiedOrganizationFor(email);
        if (!routed) throw notFound(`Single sign-on for ${email.slice(email.lastIndexOf('@') + 1)}`);
        return begin(routed.organizationId, 'sign_in', path, null, email);
      }
      if (!input.organization) throw validationFailed('email', 'is required (or organization)');
      const organization = await deps.tenancy.getOrganization(input.organization);
      return begin(organization.id, 'sign_in', path, null);
    },

    /** An owner's test sign-in: proves the provider answers, signs nobody in (organization:manage). */
    async startTest(principal: Principal, returnTo: string | undefined) {
      requirePermission(principal, 'organization:manage');
      const path = returnPath(returnTo, deps.consoleUrl(), '/settings');
      return begin(principal.organizationId, 'test', path, principal.userId);
    },

    /**
     * The provider's redirect back. The sign-in is taken by its `state` (once: a replay finds nothing) and
     * must come back to the browser that started it; then the code is exchanged and the ID token checked.
     * Answers the session to set (none for a test) and the console path to go to.
     */
    async complete(callback: URL, browser: string | undefined) {
      const state = callback.searchParams.get('state');
      if (!state || !browser)
        throw new SignInRefused('invalid_state', 'The sign-in is unknown or was used already');
      const [pending] = await db
        .delete(ssoSignIns)
        .where(and(eq(ssoSignIns.stateDigest, sha256Hex(state)), gt(ssoSignIns.expiresAt, deps.clock.now())))
        .returning();
      if (!pending || pending.browserDigest !== sha256Hex(browser)) {
        throw new SignInRefused(
          'invalid_state',
          'The sign-in is unknown, expired, used already or not this browser’s',
        );
      }
      const provider = await deps.providers.forSignIn(pending.organizationId);
      if (!provider) throw new SignInRefused('not_configured', 'Single sign-on was removed meanwhile');
      let identity: Awaited<ReturnType<OidcClient['complete']>>;
      try {
        const as = await deps.oidc.discover(provider.issuer);
        identity = await deps.oidc.complete(as, provider, callback, {
          redirectUri: deps.providers.redirectUri(),
          state,
          nonce: pending.nonce,
          codeVerifier: pending.codeVerifier,
          maxAgeSeconds: provider.sessionMaxAgeSeconds,
        });
      } catch (error) {
        if (error instanceof SsoFailure) throw new SignInRefused(error.code, error.message);
        throw error;
      }
      if (!identity.email || !identity.emailVerified) {
        throw new SignInRefused('email_not_verified', 'The provider did not vouch for the email address');
      }
      if (pending.purpose === 'test') {
        await deps.providers.markTested(pending.organizationId, pending.startedByUserId, identity.subject);
        return { returnTo: pending.returnTo, organizationId: pending.organizationId, session: undefined };
      }
      // Accounts are made or linked only for addresses at the organization's own verified domains, whatever
      // the provider asserts: another organization's provider cannot sign anyone in as someone else.
      const routed = await deps.domains.verifiedOrganizationFor(identity.email);
      if (routed?.organizationId !== pending.organizationId) {
        throw new SignInRefused(
          'domain_not_verified',
          'The address is not at a verified domain of this organization',
        );
      }
      const groups = groupsOf(identity.claims, provider.groupsClaim);
      const userId = await memberFor(pending.organizationId, identity.email, identity.name, groups);
      const session = await deps.sessions.startSession(
        userId,
        pending.organizationId,
        provider.sessionMaxAgeSeconds * 1000,
      );
      await recordAuditEvent(db, {
        organizationId: pending.organizationId,
        action: 'user.signed_in_with_sso',
        actor: { kind: 'system', userId },
        target: { type: 'user', id: userId },
        at: deps.clock.now(),
        metadata: { subject: identity.subject, groups },
      });
      return { returnTo: pending.returnTo, organizationId: pending.organizationId, session };
    },

    /** For the sign-in page: does this address sign in through single sign-on? */
    async routeFor(email: string) {
      const routed = await deps.domains.verifiedOrganizationFor(email.trim().toLowerCase());
      if (!routed || !(await deps.providers.forSignIn(routed.organizationId))) return { sso: false as const };
      return { sso: true as const };
    },
  };
}
