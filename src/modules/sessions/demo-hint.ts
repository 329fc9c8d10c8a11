import { existsSync, readFileSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { verifyPassword } from '../../lib/secrets.js';
import { memberships, users } from '../tenancy/index.js';

/**
 * Whether the sign-in page may say "the demo password is in bootstrap.json": only while the file names a
 * generated password, its owner still belongs to the demo organization, and that password still signs them
 * in (an owner who changed it, or a deleted demo organization, ends the hint). The password check (scrypt)
 * runs once per stored hash, not per page view.
 */
export function createDemoPasswordHint(deps: { database: Database; bootstrapFile: string | undefined }) {
  let checked: { hash: string; password: string; matches: boolean } | undefined;
  return async (): Promise<boolean> => {
    const file = deps.bootstrapFile;
    if (!file || !existsSync(file)) return false;
    let seeded: { organization?: { id?: string }; owner?: { id?: string; password?: string } };
    try {
      seeded = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return false;
    }
    const organizationId = seeded.organization?.id;
    const { id: ownerId, password } = seeded.owner ?? {};
    if (!organizationId || !ownerId || !password) return false;
    const [row] = await deps.database.db
      .select({ hash: users.passwordHash })
      .from(users)
      .innerJoin(memberships, eq(memberships.userId, users.id))
      .where(and(eq(users.id, ownerId), eq(memberships.organizationId, organizationId)))
      .limit(1);
    if (!row?.hash) return false;
    if (checked?.hash !== row.hash || checked.password !== password) {
      checked = { hash: row.hash, password, matches: await verifyPassword(password, row.hash) };
    }
    return checked.matches;
  };
}
