import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { notFound } from '../../http/errors.js';
import { hashPassword } from '../../lib/secrets.js';
import type { TenancyServiceDeps } from './tenancy.deps.js';
import { type User, users } from './tenancy.tables.js';

/** Users: their passwords, and finding one by id or email. */
export function createUsersService({ database, clock }: Pick<TenancyServiceDeps, 'database' | 'clock'>) {
  const { db } = database;

  return {
    /** The operator's choice of the account: it also counts as proof of its email (docs/admin-api.md). */
    async setPassword(userId: string, password: string) {
      const passwordHash = await hashPassword(password);
      const updated = await db
        .update(users)
        .set({
          passwordHash,
          emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${clock.now().toISOString()}::timestamptz)`,
        })
        .where(eq(users.id, userId))
        .returning();
      if (updated.length === 0) throw notFound(`User ${userId}`);
    },

    /**
     * A new password the account holder proved the old one for, stored in the caller's transaction (the
     * sessions module ends the other sessions in the same one).
     */
    async storePasswordHash(executor: Executor, userId: string, passwordHash: string) {
      await executor.update(users).set({ passwordHash }).where(eq(users.id, userId));
    },

    async getUser(userId: string): Promise<User> {
      const [user] = await db.select().from(users).where(eq(users.id, userId));
      if (!user) throw notFound(`User ${userId}`);
      return user;
    },

    /** The account with this email (lower case), if there is one: single sign-on's account linking. */
    async findUserByEmail(email: string): Promise<User | undefined> {
      const [user] = await db.select().from(users).where(eq(users.email, email));
      return user;
    },
  };
}
