import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import type { SessionsService } from '../sessions/index.js';
import { organizations, presentOrganization, users } from '../tenancy/index.js';

export interface AccountServiceDeps {
  database: Database;
  clock: Clock;
  sessions: Pick<SessionsService, 'changePassword'>;
  /** Reads the organization by id or slug, another one reading as absent (the organization service's). */
  ownOrganization: (principal: Principal, idOrSlug: string) => Promise<{ id: string; name: string }>;
}

export type AccountService = ReturnType<typeof createAccountService>;

/**
 * Account settings (docs/organization-api.md, "Account settings"): every user renames themselves and changes
 * their own password (the current one required; their other console sessions end); the owner renames the
 * organization (`organization:manage`).
 */
export function createAccountService({ database, clock, sessions, ownOrganization }: AccountServiceDeps) {
  const { db } = database;

  return {
    /**
     * Audited as `user.renamed` (`{ from, to }`) in the organization the credential belongs to (a person in
     * several organizations is renamed in all; the event is where they made the change). Same name: no event.
     */
    async rename(principal: Principal, name: string) {
      await db.transaction(async (tx) => {
        const [before] = await tx
          .select({ name: users.name })
          .from(users)
          .where(eq(users.id, principal.userId))
          .for('update');
        if (before?.name === name) return;
        await tx.update(users).set({ name }).where(eq(users.id, principal.userId));
        await recordAuditEvent(tx, {
          organizationId: principal.organizationId,
          action: 'user.renamed',
          actor: principal,
          target: { type: 'user', id: principal.userId },
          at: clock.now(),
          metadata: { from: before?.name ?? null, to: name },
        });
      });
    },

    async changePassword(
      principal: Principal,
      input: { currentPassword: string; newPassword: string },
      ip: string,
    ) {
      await sessions.changePassword(
        principal.userId,
        input,
        ip,
        principal.kind === 'session' ? principal.sessionId : undefined,
        (tx) =>
          recordAuditEvent(tx, {
            organizationId: principal.organizationId,
            action: 'user.password_changed',
            actor: principal,
            target: { type: 'user', id: principal.userId },
            at: clock.now(),
          }),
      );
    },

    async renameOrganization(principal: Principal, idOrSlug: string, name: string) {
      const organization = await ownOrganization(principal, idOrSlug);
      requirePermission(principal, 'organization:manage', {
        kind: 'organization',
        organizationId: organization.id,
      });
      return db.transaction(async (tx) => {
        const [updated] = await tx
          .update(organizations)
          .set({ name })
          .where(eq(organizations.id, organization.id))
          .returning();
        await recordAuditEvent(tx, {
          organizationId: organization.id,
          action: 'organization.renamed',
          actor: principal,
          target: { type: 'organization', id: organization.id },
          at: clock.now(),
          metadata: { from: organization.name, to: name },
        });
        return presentOrganization(updated!);
      });
    },
  };
}
