import { randomInt } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ApiError, notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { randomBase62, sha256Hex } from '../../lib/secrets.js';
import type { ApiKeysService } from '../api-keys/index.js';
import type { SessionPrincipal } from '../auth/index.js';
import type { TenancyService } from '../tenancy/index.js';
import type { ApproveCliLoginInput, StartCliLoginInput } from './cli-logins.schemas.js';
import { cliLogins } from './cli-logins.tables.js';

export interface CliLoginsServiceDeps {
  database: Database;
  clock: Clock;
  apiKeys: Pick<ApiKeysService, 'createHeld'>;
  tenancy: Pick<TenancyService, 'getOrganization'>;
  /** The console's origin: people approve at `{consoleUrl}/cli-login`. */
  consoleUrl: () => string;
}

const LIFETIME_MS = 10 * 60_000;
const POLL_INTERVAL_S = 2;
// Consonants only (no vowels, so no words; no look-alikes such as 0/O and 1/I), as RFC 8628 advises.
const USER_CODE_LETTERS = 'BCDFGHJKLMNPQRSTVWXZ';

const newUserCode = () => {
  const letters = Array.from({ length: 8 }, () => USER_CODE_LETTERS[randomInt(USER_CODE_LETTERS.length)]);
  return `${letters.slice(0, 4).join('')}-${letters.slice(4).join('')}`;
};
/** What a person types, in the stored form: `bcdf ghjk` and `BCDFGHJK` read as `BCDF-GHJK`. */
const normalUserCode = (typed: string) => {
  const letters = typed.toUpperCase().replace(/[^A-Z]/g, '');
  return letters.length === 8 ? `${letters.slice(0, 4)}-${letters.slice(4)}` : typed;
};

type Row = typeof cliLogins.$inferSelect;

export type CliLoginsService = ReturnType<typeof createCliLoginsService>;

/**
 * `cadre login` as a device authorization (RFC 8628's shape): the CLI starts a request carrying the digest of a
 * secret it made, a signed-in person approves it in the console with the rights and expiry they choose, and
 * the digest becomes that person's API key. The secret never leaves the CLI (docs/api-keys.md, "cadre login").
 */
export function createCliLoginsService({
  database,
  clock,
  apiKeys,
  tenancy,
  consoleUrl,
}: CliLoginsServiceDeps) {
  const { db } = database;
  const statusOf = (row: Row): 'approved' | 'denied' | 'expired' | 'pending' => {
    if (row.apiKeyId) return 'approved';
    if (row.deniedAt) return 'denied';
    return row.expiresAt <= clock.now() ? 'expired' : 'pending';
  };

  /** A request a person may act on: unknown and expired codes read the same (404). */
  async function pending(userCode: string): Promise<Row> {
    const [row] = await db
      .select()
      .from(cliLogins)
      .where(eq(cliLogins.userCode, normalUserCode(userCode)));
    if (!row || statusOf(row) === 'expired') throw notFound(`Sign-in request ${userCode}`);
    if (statusOf(row) !== 'pending') {
      throw new ApiError('conflict', `This sign-in request was already ${statusOf(row)}`);
    }
    return row;
  }

  return {
    async start(input: StartCliLoginInput) {
      const deviceCode = `cdc_${randomBase62(43)}`;
      const now = clock.now();
      const row = {
        id: newId(),
        deviceCodeDigest: sha256Hex(deviceCode),
        userCode: newUserCode(),
        name: input.name,
        keyStart: input.keyStart,
        keyDigest: input.keyDigest,
        createdAt: now,
        expiresAt: new Date(now.getTime() + LIFETIME_MS),
      };
      await db.insert(cliLogins).values(row);
      const page = `${consoleUrl().replace(/\/+$/, '')}/cli-login`;
      return {
        deviceCode,
        userCode: row.userCode,
        verificationUrl: page,
        verificationUrlComplete: `${page}?code=${row.userCode}`,
        expiresAt: row.expiresAt.toISOString(),
        interval: POLL_INTERVAL_S,
      };
    },

    async poll(deviceCode: string) {
      const [row] = await db
        .select()
        .from(cliLogins)
        .where(eq(cliLogins.deviceCodeDigest, sha256Hex(deviceCode)));
      if (!row) throw notFound('Sign-in request');
      const status = statusOf(row);
      const organization =
        status === 'approved' && row.organizationId
          ? await tenancy.getOrganization(row.organizationId)
          : null;
      return {
        status,
        apiKeyId: status === 'approved' ? row.apiKeyId : null,
        organization: organization && {
          id: organization.id,
          slug: organization.slug,
          name: organization.name,
        },
      };
    },

    async read(userCode: string) {
      const row = await pending(userCode);
      return {
        userCode: row.userCode,
        name: row.name,
        status: statusOf(row),
        createdAt: row.createdAt.toISOString(),
        expiresAt: row.expiresAt.toISOString(),
      };
    },

    /**
     * The signed-in person approves: the request is claimed first (a second approval finds it taken, 409), then
     * the key is created as any key of theirs is (their permission, their role's ceiling, the plan's limit).
     * A refused creation gives the claim back, so the person can choose again.
     */
    async approve(principal: SessionPrincipal, userCode: string, input: ApproveCliLoginInput) {
      const row = await pending(userCode);
      const [claimed] = await db
        .update(cliLogins)
        .set({ organizationId: principal.organizationId })
        .where(and(eq(cliLogins.id, row.id), isNull(cliLogins.organizationId), isNull(cliLogins.deniedAt)))
        .returning();
      if (!claimed) throw new ApiError('conflict', 'This sign-in request is being approved already');
      try {
        const key = await apiKeys.createHeld(
          principal,
          {
            name: row.name,
            grants: input.grants,
            ...(input.expiresIn === undefined ? {} : { expiresIn: input.expiresIn }),
          },
          { start: row.keyStart, digest: row.keyDigest },
        );
        await db.update(cliLogins).set({ apiKeyId: key.id }).where(eq(cliLogins.id, row.id));
        return { apiKeyId: key.id };
      } catch (error) {
        await db.update(cliLogins).set({ organizationId: null }).where(eq(cliLogins.id, row.id));
        throw error;
      }
    },

    async deny(userCode: string) {
      const row = await pending(userCode);
      await db.update(cliLogins).set({ deniedAt: clock.now() }).where(eq(cliLogins.id, row.id));
      return { status: 'denied' as const };
    },
  };
}
