import { eq } from 'drizzle-orm';
import type { Change } from '../../db/change-bus.js';
import type { Tx } from '../../db/client.js';
import { ApiError } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { hashPassword, verifyPassword } from '../../lib/secrets.js';
import { revokeUserApiKeys } from '../api-keys/index.js';
import { recordAuditEvent } from '../audit/index.js';
import { endUserSessions } from '../sessions/index.js';
import { resetAccountCredentials, type User, users } from '../tenancy/index.js';
import type { invitations } from './invitations.tables.js';
import type { AcceptInvitationInput } from './members.schemas.js';

// Accepting an invitation (docs/organization-api.md, "Following the link"): which account joins, and how an
// account whose email was never proven is treated (docs/admin-api.md, "Accounts and proven emails").

const MIN_PASSWORD = 12;

type InvitationRow = typeof invitations.$inferSelect;

export type Admission =
  | { kind: 'create'; proven: boolean; passwordHash: string }
  | { kind: 'join'; user: User }
  | { kind: 'prove'; user: User }
  | { kind: 'claim'; user: User; passwordHash: string };

/**
 * Who may accept as which account (slow checks, before the transaction):
 * - no account has the email: a new one with a name and a password (`create`), its email proven when the
 *   link is the mailed one;
 * - an account whose email is proven: it shows its password, or a console session of it (`join`);
 * - an account whose email was never proven: only the mailed link opens it. Its password or a session of it
 *   proves the email (`prove`); anything else takes the account over for the mailbox (`claim`: a new
 *   password, every session and API key of it ended). The copied link is 409: whoever set that password may
 *   not own the address, and gains nothing granted to it later.
 */
export async function admission(
  email: string,
  existing: User | undefined,
  mailed: boolean,
  input: AcceptInvitationInput,
  signedInUserId: string | undefined,
  admitGuess: (email: string) => Promise<void>,
): Promise<Admission> {
  if (!existing) return { kind: 'create', proven: mailed, passwordHash: await newPassword(input, true) };
  if (!existing.emailVerifiedAt) {
    if (!mailed) {
      throw new ApiError(
        'conflict',
        `${email} has an account that never proved this email address, so this link cannot add it: accept ` +
          `the invitation from the link mailed to ${email}, or have the operator add it (docs: "Accounts and ` +
          'proven emails")',
      );
    }
    if (existing.id === signedInUserId) return { kind: 'prove', user: existing };
    if (
      input.password !== undefined &&
      existing.passwordHash &&
      (await verifyPassword(input.password, existing.passwordHash))
    ) {
      return { kind: 'prove', user: existing };
    }
    return { kind: 'claim', user: existing, passwordHash: await newPassword(input, false) };
  }
  if (existing.id === signedInUserId) {
    // Signed in to the console as the invited account: that is proof enough (the session's CSRF token too).
    return { kind: 'join', user: existing };
  }
  if (!existing.passwordHash) {
    // An account the operator made without a password: the link never sets one (its holder, the inviter
    // included, would own the account in every organization it belongs to).
    throw new ApiError(
      'conflict',
      `${email} already has an account without a console password: have the operator set one ` +
        '(cadre admin password set), sign in, then open this link again',
    );
  }
  await admitGuess(email);
  if (input.password === undefined) {
    throw new ApiError('validation_failed', `Give the password of ${email}, or sign in as it`, [
      { path: 'password', message: `the password of ${email} is required` },
    ]);
  }
  if (!(await verifyPassword(input.password, existing.passwordHash))) {
    throw new ApiError('validation_failed', `The password is not the password of ${email}`, [
      { path: 'password', message: `is not the password of ${email}` },
    ]);
  }
  return { kind: 'join', user: existing };
}

/** The hash of a password an account is given through a link (`needsName`: a new account needs a name too). */
async function newPassword(input: AcceptInvitationInput, needsName: boolean): Promise<string> {
  const problems = [
    ...(input.name || !needsName ? [] : [{ path: 'name', message: 'a new account needs a name' }]),
    ...(input.password !== undefined && input.password.length >= MIN_PASSWORD
      ? []
      : [{ path: 'password', message: `a new account needs at least ${MIN_PASSWORD} characters` }]),
  ];
  if (problems.length || input.password === undefined) {
    throw new ApiError('validation_failed', 'Request validation failed', problems);
  }
  return hashPassword(input.password);
}

/** The account that joins, written as `admitted` says, in the acceptance's transaction. */
export async function accountOf(
  tx: Tx,
  publish: (change: Change) => Promise<void>,
  invitation: InvitationRow,
  admitted: Admission,
  input: AcceptInvitationInput,
  now: Date,
): Promise<User> {
  if (admitted.kind === 'join') return admitted.user;
  if (admitted.kind === 'create') {
    const [created] = await tx
      .insert(users)
      .values({
        id: newId(),
        email: invitation.email,
        name: input.name ?? null,
        passwordHash: admitted.passwordHash,
        emailVerifiedAt: admitted.proven ? now : null,
      })
      .onConflictDoNothing({ target: users.email })
      .returning();
    // Another link for the same email made the account a moment ago (two first accepts at once).
    if (!created) {
      throw new ApiError(
        'conflict',
        `An account for ${invitation.email} was created a moment ago; open the link again to join with it`,
      );
    }
    return created;
  }
  // Locked and read again: the operator may have reset or proven it meanwhile.
  const [user] = await tx.select().from(users).where(eq(users.id, admitted.user.id)).for('update');
  if (!user || user.emailVerifiedAt) {
    throw new ApiError(
      'conflict',
      `The account of ${invitation.email} changed a moment ago; open the link again to join with it`,
    );
  }
  if (admitted.kind === 'prove') {
    const [proven] = await tx
      .update(users)
      .set({ emailVerifiedAt: now })
      .where(eq(users.id, user.id))
      .returning();
    return proven!;
  }
  const reset = await resetAccountCredentials(
    tx,
    publish,
    { endSessions: endUserSessions, revokeApiKeys: revokeUserApiKeys },
    user.id,
    now,
    admitted.passwordHash,
  );
  const [claimed] = await tx
    .update(users)
    .set({ name: input.name ?? user.name })
    .where(eq(users.id, user.id))
    .returning();
  await recordAuditEvent(tx, {
    organizationId: invitation.organizationId,
    action: 'user.credentials_reset',
    actor: { kind: 'system', userId: user.id },
    target: { type: 'user', id: user.id },
    at: now,
    metadata: { email: invitation.email, reason: 'mailed_invitation', ...reset },
  });
  return claimed!;
}
