import { eq } from 'drizzle-orm';
import type { Change } from '../../db/change-bus.js';
import type { Tx } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import type { Actor } from '../auth/index.js';
import { resetAccountCredentials, unprovenAccount } from './account-reset.js';
import type { TenancyServiceDeps } from './tenancy.deps.js';
import { type User, users } from './tenancy.tables.js';

/** The account for an email the operator names: creating an organization's owner or adding a member. */
export type AccountFor = ReturnType<typeof createAccountFor>;

export function createAccountFor({
  clock,
  recordAudit,
  credentials,
}: Pick<TenancyServiceDeps, 'clock' | 'recordAudit' | 'credentials'>) {
  /**
   * The account for an email the operator names (docs/admin-api.md, "Accounts and proven emails"): a new one is
   * proven by the operator's choice; an existing one is reused (one person in several organizations) once its
   * email is proven. An unproven one (made from a copied invitation link) is 409 naming `optionPath`, unless the
   * operator chose `reset`: then whoever set its credentials loses them, and the operator's choice proves it.
   */
  return async function accountFor(
    tx: Tx,
    publish: (change: Change) => Promise<void>,
    organizationId: string,
    input: { email: string; name?: string | undefined; unverifiedAccount?: 'reset' | undefined },
    optionPath: string,
    actor: Actor,
  ): Promise<User> {
    const now = clock.now();
    const [created] = await tx
      .insert(users)
      .values({ id: newId(), email: input.email, name: input.name ?? null, emailVerifiedAt: now })
      .onConflictDoNothing({ target: users.email })
      .returning();
    if (created) return created;
    // Locked: an invitation's acceptance proving or claiming it at the same time waits for this decision.
    const [existing] = await tx.select().from(users).where(eq(users.email, input.email)).for('update');
    if (!existing) throw new Error(`user ${input.email} vanished during creation`);
    if (existing.emailVerifiedAt) return existing;
    if (input.unverifiedAccount !== 'reset') throw unprovenAccount(input.email, existing.id, optionPath);
    const reset = await resetAccountCredentials(tx, publish, credentials, existing.id, now);
    await recordAudit(tx, {
      organizationId,
      action: 'user.credentials_reset',
      actor,
      target: { type: 'user', id: existing.id },
      at: now,
      metadata: { email: input.email, reason: 'unproven_email', ...reset },
    });
    return { ...existing, passwordHash: null, emailVerifiedAt: now };
  };
}
