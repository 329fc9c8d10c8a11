import { domainToASCII } from 'node:url';
import { and, asc, eq, isNotNull, isNull, lt, or } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ApiError, notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { randomBase62 } from '../../lib/secrets.js';
import { recordAuditEvent } from '../audit/index.js';
import type { Actor } from '../auth/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import {
  type DomainProof,
  type ProofMethod,
  type ProofOutcome,
  proofLine,
  TXT_PREFIX,
  WELL_KNOWN_PATH,
} from './domain-proof.js';
import type { ClaimDomainInput, DomainRecord } from './domains.schemas.js';
import { organizationDomains } from './domains.tables.js';

type DomainRow = typeof organizationDomains.$inferSelect;

export interface DomainsServiceDeps {
  database: Database;
  clock: Clock;
  proof: DomainProof;
  /** How old a verified domain's last check may be before the periodic re-check looks at it again. */
  recheckAfterMs?: number | undefined;
  /** Consecutive failed re-checks after which a verified domain lapses (a DNS hiccup is not a lapse). */
  lapseAfterFailures?: number | undefined;
}

export type DomainsService = ReturnType<typeof createDomainsService>;

const TAKEN = (domain: string) =>
  new ApiError('conflict', `${domain} is verified by another organization`, [
    { path: 'domain', message: 'verified by another organization' },
  ]);

/**
 * Verified email domains (docs/domains.md): an owner claims a domain, publishes the challenge as a DNS TXT
 * record or a file, and asks Cadre to check it; a verified domain is re-checked periodically and lapses after
 * repeated failures. Only a verified domain routes sign-in (`verifiedOrganizationFor`), and only one
 * organization holds a domain verified at a time.
 */
export function createDomainsService(deps: DomainsServiceDeps) {
  const { database, clock, proof } = deps;
  const { db } = database;
  const recheckAfterMs = deps.recheckAfterMs ?? 6 * 3_600_000;
  const lapseAfterFailures = deps.lapseAfterFailures ?? 3;

  const present = (row: DomainRow): DomainRecord => ({
    id: row.id,
    domain: row.domain,
    status: row.verifiedAt ? 'verified' : row.lapsedAt ? 'lapsed' : 'pending',
    method: row.method,
    dnsRecord: { type: 'TXT', name: `${TXT_PREFIX}.${row.domain}`, value: proofLine(row.challenge) },
    httpFile: { url: `https://${row.domain}${WELL_KNOWN_PATH}`, content: proofLine(row.challenge) },
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    lastCheckedAt: row.lastCheckedAt?.toISOString() ?? null,
    lastError: row.lastError,
    lapsedAt: row.lapsedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  });

  async function own(principal: Principal, domainId: string): Promise<DomainRow> {
    const [row] = await db
      .select()
      .from(organizationDomains)
      .where(
        and(
          eq(organizationDomains.id, domainId),
          eq(organizationDomains.organizationId, principal.organizationId),
        ),
      );
    if (!row) throw notFound(`Domain ${domainId}`);
    return row;
  }

  /** The given proofs in turn (the DNS record first by default); the first that holds wins. */
  async function check(row: DomainRow, methods: ProofMethod[]): Promise<ProofOutcome> {
    const reasons: string[] = [];
    for (const method of methods) {
      const outcome = await proof(row.domain, row.challenge, method);
      if (outcome.ok) return outcome;
      reasons.push(outcome.reason);
    }
    return { ok: false, method: methods[0]!, reason: reasons.join('; ') };
  }

  const audit =
    (row: DomainRow, action: string, actor: Actor, at: Date, extra: Record<string, unknown> = {}) =>
    (executor: Parameters<typeof recordAuditEvent>[0]) =>
      recordAuditEvent(executor, {
        organizationId: row.organizationId,
        action,
        actor,
        target: { type: 'domain', id: row.id },
        at,
        metadata: { domain: row.domain, ...extra },
      });

  return {
    async list(principal: Principal): Promise<DomainRecord[]> {
      requirePermission(principal, 'members:read');
      const rows = await db
        .select()
        .from(organizationDomains)
        .where(eq(organizationDomains.organizationId, principal.organizationId))
        .orderBy(asc(organizationDomains.createdAt), asc(organizationDomains.id));
      return rows.map(present);
    },

    async get(principal: Principal, domainId: string): Promise<DomainRecord> {
      requirePermission(principal, 'members:read');
      return present(await own(principal, domainId));
    },

    /** A claim is refused while another organization holds the domain verified (a lapsed one is free). */
    async claim(principal: Principal, input: ClaimDomainInput): Promise<DomainRecord> {
      requirePermission(principal, 'organization:manage');
      const now = clock.now();
      return db.transaction(async (tx) => {
        const [taken] = await tx
          .select({ id: organizationDomains.id })
          .from(organizationDomains)
          .where(
            and(eq(organizationDomains.domain, input.domain), isNotNull(organizationDomains.verifiedAt)),
          );
        if (taken) throw TAKEN(input.domain);
        const created = await tx
          .insert(organizationDomains)
          .values({
            id: newId(),
            organizationId: principal.organizationId,
            domain: input.domain,
            challenge: randomBase62(32),
            createdAt: now,
          })
          .returning()
          .catch((error: unknown) => {
            if (isUniqueViolation(error))
              throw new ApiError('conflict', `${input.domain} is already claimed by this organization`);
            throw error;
          });
        await audit(created[0]!, 'domain.claimed', principal, now)(tx);
        return present(created[0]!);
      });
    },

    /**
     * Checks the proof now. A proof that does not hold is no error: the answer is the domain, still pending
     * (or lapsed), with what was found in `lastError`. A proof that holds while another organization holds
     * the domain verified is 409.
     */
    async verify(principal: Principal, domainId: string, method?: ProofMethod): Promise<DomainRecord> {
      requirePermission(principal, 'organization:manage');
      const row = await own(principal, domainId);
      const outcome = await check(row, method ? [method] : ['dns', 'http']);
      const now = clock.now();
      return db.transaction(async (tx) => {
        if (!outcome.ok) {
          const [updated] = await tx
            .update(organizationDomains)
            .set({ lastCheckedAt: now, lastError: outcome.reason })
            .where(eq(organizationDomains.id, row.id))
            .returning();
          if (!updated) throw notFound(`Domain ${domainId}`);
          return present(updated);
        }
        const [updated] = await tx
          .update(organizationDomains)
          .set({
            verifiedAt: row.verifiedAt ?? now,
            method: outcome.method,
            lastCheckedAt: now,
            failures: 0,
            lastError: null,
            lapsedAt: null,
          })
          .where(eq(organizationDomains.id, row.id))
          .returning()
          .catch((error: unknown) => {
            if (isUniqueViolation(error)) throw TAKEN(row.domain);
            throw error;
          });
        if (!updated) throw notFound(`Domain ${domainId}`);
        if (!row.verifiedAt)
          await audit(updated, 'domain.verified', principal, now, { method: outcome.method })(tx);
        return present(updated);
      });
    },

    async remove(principal: Principal, domainId: string): Promise<DomainRecord> {
      requirePermission(principal, 'organization:manage');
      const row = await own(principal, domainId);
      return db.transaction(async (tx) => {
        const [removed] = await tx
          .delete(organizationDomains)
          .where(eq(organizationDomains.id, row.id))
          .returning();
        if (!removed) throw notFound(`Domain ${domainId}`);
        await audit(removed, 'domain.removed', principal, clock.now())(tx);
        return present(removed);
      });
    },

    /**
     * One pass of the periodic re-check: every verified domain whose last check is older than the interval.
     * Each instance runs it; a domain is taken by moving its `lastCheckedAt` forward only if no other
     * instance did first, so each is checked once per interval. Answers how many domains lapsed.
     */
    async recheckDue(): Promise<number> {
      const now = clock.now();
      const due = await db
        .select()
        .from(organizationDomains)
        .where(
          and(
            isNotNull(organizationDomains.verifiedAt),
            or(
              isNull(organizationDomains.lastCheckedAt),
              lt(organizationDomains.lastCheckedAt, new Date(now.getTime() - recheckAfterMs)),
            ),
          ),
        );
      let lapsed = 0;
      for (const row of due) {
        const taken = await db
          .update(organizationDomains)
          .set({ lastCheckedAt: now })
          .where(
            and(
              eq(organizationDomains.id, row.id),
              row.lastCheckedAt
                ? eq(organizationDomains.lastCheckedAt, row.lastCheckedAt)
                : isNull(organizationDomains.lastCheckedAt),
            ),
          )
          .returning({ id: organizationDomains.id });
        if (taken.length === 0) continue;
        const preferred = row.method ?? 'dns';
        const outcome = await check(row, [preferred, preferred === 'dns' ? 'http' : 'dns']);
        if (outcome.ok) {
          await db
            .update(organizationDomains)
            .set({ failures: 0, lastError: null, method: outcome.method })
            .where(eq(organizationDomains.id, row.id));
          continue;
        }
        const failures = row.failures + 1;
        const lapses = failures >= lapseAfterFailures;
        await db.transaction(async (tx) => {
          const [updated] = await tx
            .update(organizationDomains)
            .set({
              failures,
              lastError: outcome.reason,
              ...(lapses ? { verifiedAt: null, lapsedAt: now } : {}),
            })
            .where(and(eq(organizationDomains.id, row.id), isNotNull(organizationDomains.verifiedAt)))
            .returning();
          if (updated && lapses) {
            await audit(updated, 'domain.lapsed', { kind: 'system' }, now, {
              reason: outcome.reason,
              failures,
            })(tx);
          }
        });
        if (lapses) lapsed++;
      }
      return lapsed;
    },

    /**
     * The organization an email address (or bare domain) at a verified domain belongs to, for sign-in
     * routing: exact match of the address's domain (a subdomain is a domain of its own); undefined when no
     * organization holds it verified.
     */
    async verifiedOrganizationFor(
      emailOrDomain: string,
    ): Promise<{ organizationId: string; domain: string } | undefined> {
      // As claims are stored: ASCII (punycode), lower case, no trailing dot.
      const domain = domainToASCII(emailOrDomain.slice(emailOrDomain.lastIndexOf('@') + 1).trim()).replace(
        /\.$/,
        '',
      );
      if (!domain) return undefined;
      const [row] = await db
        .select({ organizationId: organizationDomains.organizationId, domain: organizationDomains.domain })
        .from(organizationDomains)
        .where(and(eq(organizationDomains.domain, domain), isNotNull(organizationDomains.verifiedAt)));
      return row;
    },
  };
}
