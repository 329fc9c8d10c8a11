import { and, asc, eq, gt, inArray, isNull, max, ne } from 'drizzle-orm';
import type { Database, Tx } from '../../db/client.js';
import { ApiError, notFound, tooManyRequests } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { isId, newId } from '../../lib/ids.js';
import { hashPassword, randomBase62, safeEqual, sha256Hex, verifyPassword } from '../../lib/secrets.js';
import type { SessionPrincipal } from '../auth/index.js';
import type { TenancyService } from '../tenancy/index.js';
import { memberships, organizations, users } from '../tenancy/index.js';
import type { LoginLimiter } from './login-limiter.js';
import { consoleSessions } from './sessions.tables.js';

export const SESSION_COOKIE = 'cadre_session';
const TOKEN_PATTERN = /^cs_[0-9A-Za-z]{43}$/;

/** The CSRF token is derived from the session token, so it needs no storage and dies with the session. */
const csrfTokenFor = (token: string): string => sha256Hex(`cadre-csrf:${token}`);

export interface SessionsServiceDeps {
  database: Database;
  clock: Clock;
  limiter: LoginLimiter;
  ttlMs: number;
  /** Stores a user's new password hash (the tenancy service owns users). */
  passwords: Pick<TenancyService, 'setPassword' | 'storePasswordHash'>;
  /**
   * May this account sign in with a password to this organization? Throws the refusal (single sign-on
   * enforced for the account's domain, docs/sso.md); absent: passwords always may.
   */
  passwordPolicy?: PasswordPolicy | undefined;
}

export interface PasswordPolicy {
  /**
   * Checked before the password (so a refusal says nothing about it): throws when the account may not use a
   * password; may answer what to record once the password proved right (a break-glass use).
   */
  checkPasswordSignIn(
    user: { id: string; email: string },
    ip: string,
  ): Promise<(() => Promise<void>) | undefined>;
}

export interface LoginInput {
  email: string;
  password: string;
  organization?: string | undefined;
}

export type SessionsService = ReturnType<typeof createSessionsService>;

const invalidLogin = () => new ApiError('unauthorized', 'Invalid email, password or organization');

export function createSessionsService({
  database,
  clock,
  limiter,
  ttlMs,
  passwords,
  passwordPolicy,
}: SessionsServiceDeps) {
  const { db } = database;
  // Unknown emails still cost one scrypt verification, so response times do not reveal which accounts exist.
  const dummyHash = hashPassword(randomBase62(24));

  async function revokeAllForUser(userId: string) {
    await db
      .update(consoleSessions)
      .set({ revokedAt: clock.now() })
      .where(and(eq(consoleSessions.userId, userId), isNull(consoleSessions.revokedAt)));
  }

  /** Every organization the user belongs to, oldest membership first (the default at sign-in). */
  function membershipsOf(userId: string) {
    return db
      .select({
        id: organizations.id,
        slug: organizations.slug,
        name: organizations.name,
        role: memberships.role,
      })
      .from(memberships)
      .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
      .where(eq(memberships.userId, userId))
      .orderBy(asc(memberships.createdAt), asc(memberships.organizationId));
  }

  /** The user, the session's organization and every organization the user may switch to. */
  async function describe(userId: string, organizationId: string) {
    const [row] = await db
      .select({ user: users, organization: organizations })
      .from(users)
      .innerJoin(organizations, eq(organizations.id, organizationId))
      .where(eq(users.id, userId));
    if (!row) throw invalidLogin();
    return { ...row, organizations: await membershipsOf(userId) };
  }

  /**
   * A new console session of the user in the organization: the default lifetime, or `maxAgeMs` when shorter
   * (a session made by single sign-on lives no longer than its organization allows, docs/sso.md).
   */
  async function startSession(userId: string, organizationId: string, maxAgeMs?: number) {
    const token = `cs_${randomBase62(43)}`;
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + Math.min(ttlMs, maxAgeMs ?? ttlMs));
    await db.insert(consoleSessions).values({
      id: newId(),
      tokenDigest: sha256Hex(token),
      userId,
      organizationId,
      createdAt: now,
      expiresAt,
    });
    const described = await describe(userId, organizationId);
    return { token, expiresAt, ...described, csrfToken: csrfTokenFor(token) };
  }

  /** The membership named by id or slug, if the user has it. */
  const pick = <T extends { id: string; slug: string }>(rows: T[], wanted: string) =>
    rows.find((row) => row.slug === wanted || (isId(wanted) && row.id === wanted));

  return {
    async login(input: LoginInput, ip: string) {
      const email = input.email.trim().toLowerCase();
      const wait = await limiter.admit(ip, email);
      if (wait !== undefined) {
        throw tooManyRequests('Too many login attempts; try again later', wait, 'login');
      }
      const [user] = await db.select().from(users).where(eq(users.email, email));
      const onPasswordUsed = user && (await passwordPolicy?.checkPasswordSignIn(user, ip));
      const passwordOk = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash));
      if (!user?.passwordHash || !passwordOk) {
        await limiter.failed(email, ip);
        throw invalidLogin();
      }
      // Several memberships: the one named in the body (id or slug), else the oldest.
      const rows = await membershipsOf(user.id);
      const membership = input.organization ? pick(rows, input.organization) : rows[0];
      if (!membership) {
        await limiter.failed(email, ip);
        throw invalidLogin();
      }
      await limiter.succeeded(email, ip);
      await onPasswordUsed?.();
      return startSession(user.id, membership.id);
    },

    startSession,

    /** The principal of a live session; null for unknown, expired or revoked tokens or a removed membership. */
    async resolve(token: string): Promise<SessionPrincipal | null> {
      if (!TOKEN_PATTERN.test(token)) return null;
      const digest = sha256Hex(token);
      const [row] = await db
        .select({
          id: consoleSessions.id,
          digest: consoleSessions.tokenDigest,
          userId: consoleSessions.userId,
          organizationId: consoleSessions.organizationId,
          role: memberships.role,
        })
        .from(consoleSessions)
        .innerJoin(
          memberships,
          and(
            eq(memberships.organizationId, consoleSessions.organizationId),
            eq(memberships.userId, consoleSessions.userId),
          ),
        )
        .where(
          and(
            eq(consoleSessions.tokenDigest, digest),
            isNull(consoleSessions.revokedAt),
            gt(consoleSessions.expiresAt, clock.now()),
          ),
        );
      if (!row || !safeEqual(row.digest, digest)) return null;
      return {
        kind: 'session',
        sessionId: row.id,
        userId: row.userId,
        organizationId: row.organizationId,
        role: row.role,
        csrfToken: csrfTokenFor(token),
      };
    },

    describe: (principal: SessionPrincipal) => describe(principal.userId, principal.organizationId),

    /**
     * Moves the session to another of the user's organizations (id or slug): every page then works in it, with
     * the role held there. An organization the user is not in reads as absent (404), like any other's.
     */
    async switchOrganization(principal: SessionPrincipal, organization: string) {
      const target = pick(await membershipsOf(principal.userId), organization);
      if (!target) throw notFound(`Organization ${organization}`);
      await db
        .update(consoleSessions)
        .set({ organizationId: target.id })
        .where(eq(consoleSessions.id, principal.sessionId));
      return describe(principal.userId, target.id);
    },

    async revoke(sessionId: string) {
      await db
        .update(consoleSessions)
        .set({ revokedAt: clock.now() })
        .where(and(eq(consoleSessions.id, sessionId), isNull(consoleSessions.revokedAt)));
    },

    /** Ends every session of a user (for example after a password change). */
    revokeAllForUser,

    /** Each of these users' latest console sign-in to this organization (none: never, or not since kept). */
    async lastSignIns(organizationId: string, userIds: string[]): Promise<Map<string, Date>> {
      if (userIds.length === 0) return new Map();
      const rows = await db
        .select({ userId: consoleSessions.userId, at: max(consoleSessions.createdAt) })
        .from(consoleSessions)
        .where(
          and(eq(consoleSessions.organizationId, organizationId), inArray(consoleSessions.userId, userIds)),
        )
        .groupBy(consoleSessions.userId);
      return new Map(rows.flatMap((row) => (row.at ? [[row.userId, row.at] as const] : [])));
    },

    /**
     * A user changes their own password (docs/organization-api.md, "Account settings"): the current one is
     * checked as a login checks it, and wrong guesses count against the login throttle of that account and
     * address (429 past it). On success every other console session of the user ends; `keepSessionId`, the
     * session making the change, stays signed in. API keys are untouched. The new hash, the sessions ended and
     * `within` (the audit event) are written in one transaction.
     */
    async changePassword(
      userId: string,
      input: { currentPassword: string; newPassword: string },
      ip: string,
      keepSessionId: string | undefined,
      within: (tx: Tx) => Promise<void>,
    ) {
      const [user] = await db.select().from(users).where(eq(users.id, userId));
      if (!user) throw new ApiError('not_found', `User ${userId} not found`);
      const wait = await limiter.admit(ip, user.email);
      if (wait !== undefined) {
        throw tooManyRequests('Too many wrong passwords; try again later', wait, 'login');
      }
      const passwordOk = await verifyPassword(input.currentPassword, user.passwordHash ?? (await dummyHash));
      if (!user.passwordHash || !passwordOk) {
        await limiter.failed(user.email, ip);
        throw new ApiError('validation_failed', 'The current password is not right', [
          { path: 'currentPassword', message: 'is not your current password' },
        ]);
      }
      const passwordHash = await hashPassword(input.newPassword);
      await db.transaction(async (tx) => {
        await passwords.storePasswordHash(tx, userId, passwordHash);
        await tx
          .update(consoleSessions)
          .set({ revokedAt: clock.now() })
          .where(
            and(
              eq(consoleSessions.userId, userId),
              isNull(consoleSessions.revokedAt),
              keepSessionId ? ne(consoleSessions.id, keepSessionId) : undefined,
            ),
          );
        await within(tx);
      });
    },

    /**
     * Sets a user's password and ends their console sessions: a reset must lock out whoever knew the old
     * password (docs/sessions.md).
     */
    async resetPassword(userId: string, password: string) {
      await passwords.setPassword(userId, password);
      await revokeAllForUser(userId);
    },
  };
}
