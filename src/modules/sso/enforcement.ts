import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { forbidden } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { recordAuditEvent } from '../audit/index.js';
import type { PasswordPolicy } from '../sessions/index.js';
import type { VerifiedDomains } from './sign-in.service.js';
import { ssoProviders } from './sso.tables.js';

export interface EnforcementDeps {
  database: Database;
  clock: Clock;
  domains: VerifiedDomains;
}

/**
 * Enforced single sign-on (docs/sso.md, "Enforcement"): the organization whose verified domain an address is
 * at decides; while it enforces, that address signs in through its provider only, except its break-glass
 * owners, whose every password sign-in is audited (sso.break_glass_used). API keys are not affected.
 */
export function createSsoEnforcement({ database, clock, domains }: EnforcementDeps) {
  const { db } = database;

  /** The enforcing organization's provider row for this address, if its domain's organization enforces. */
  async function enforcingFor(email: string) {
    const routed = await domains.verifiedOrganizationFor(email);
    if (!routed) return undefined;
    const [provider] = await db
      .select({ enforced: ssoProviders.enforced, breakGlassUserIds: ssoProviders.breakGlassUserIds })
      .from(ssoProviders)
      .where(eq(ssoProviders.organizationId, routed.organizationId));
    return provider?.enforced
      ? { ...provider, organizationId: routed.organizationId, domain: routed.domain }
      : undefined;
  }

  const passwordPolicy: PasswordPolicy = {
    async checkPasswordSignIn(user, ip) {
      const enforcing = await enforcingFor(user.email);
      if (!enforcing) return undefined;
      if (!enforcing.breakGlassUserIds.includes(user.id)) {
        throw forbidden(
          `${enforcing.domain} signs in through single sign-on: sign in with your identity provider`,
        );
      }
      return () =>
        recordAuditEvent(db, {
          organizationId: enforcing.organizationId,
          action: 'sso.break_glass_used',
          actor: { kind: 'system', userId: user.id },
          target: { type: 'user', id: user.id },
          at: clock.now(),
          metadata: { ip },
        });
    },
  };

  return {
    passwordPolicy,
    /** Refuses a password-based invitation to an address whose organization enforces single sign-on. */
    async checkPasswordInvitation(email: string) {
      const enforcing = await enforcingFor(email.trim().toLowerCase());
      if (enforcing) {
        throw forbidden(
          `${enforcing.domain} signs in through single sign-on: its people join by signing in with their identity provider`,
        );
      }
    },
  };
}
