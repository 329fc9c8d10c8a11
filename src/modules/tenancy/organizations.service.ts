import { eq, or } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { Executor } from '../../db/client.js';
import { notFound } from '../../http/errors.js';
import { isId, newId } from '../../lib/ids.js';
import type { AccountFor } from './accounts.js';
import { conflictOnDuplicate } from './duplicates.js';
import type { TenancyServiceDeps } from './tenancy.deps.js';
import type { CreateOrganizationInput } from './tenancy.schemas.js';
import { memberships, type Organization, organizations, type User } from './tenancy.tables.js';

export type OrganizationsService = ReturnType<typeof createOrganizationsService>;

/** Organizations: created with their owner, found by id or slug, and their slugs remembered. */
export function createOrganizationsService({
  database,
  bus,
  onOrganizationCreated,
  accountFor,
}: Pick<TenancyServiceDeps, 'database' | 'bus' | 'onOrganizationCreated'> & { accountFor: AccountFor }) {
  const { db } = database;

  async function getOrganization(idOrSlug: string, executor: Executor = db): Promise<Organization> {
    const condition = isId(idOrSlug)
      ? or(eq(organizations.id, idOrSlug), eq(organizations.slug, idOrSlug))
      : eq(organizations.slug, idOrSlug);
    const [organization] = await executor.select().from(organizations).where(condition).limit(1);
    if (!organization) throw notFound(`Organization ${idOrSlug}`);
    return organization;
  }

  // An organization's id and slug never change (nothing updates them, nothing deletes an organization): a
  // slug once read is right for the life of the process, on every instance, with nothing to invalidate.
  const slugs = new LRUCache<string, string>({ max: 10_000 });

  /** An organization's slug, from memory after its first read (undefined for an unknown id). */
  async function organizationSlug(organizationId: string): Promise<string | undefined> {
    const cached = slugs.get(organizationId);
    if (cached !== undefined) return cached;
    const [row] = await db
      .select({ slug: organizations.slug })
      .from(organizations)
      .where(eq(organizations.id, organizationId));
    if (row) slugs.set(organizationId, row.slug);
    return row?.slug;
  }

  /**
   * The caller's own organization's id when `idOrSlug` names it (by id or slug): no query for its id, none
   * for its slug after the first. Any other organization, known or not, is 404.
   */
  async function ownOrganizationId(principal: { organizationId: string }, idOrSlug: string) {
    const id = principal.organizationId;
    if (idOrSlug !== id && (await organizationSlug(id)) !== idOrSlug) {
      throw notFound(`Organization ${idOrSlug}`);
    }
    return id;
  }

  return {
    getOrganization,
    ownOrganizationId,
    organizationSlug,

    /** `withinTransaction` runs in the same transaction (the owner's first API key is created there). */
    async createOrganization<T>(
      input: CreateOrganizationInput,
      withinTransaction: (tx: Executor, created: { organization: Organization; owner: User }) => Promise<T>,
    ) {
      return conflictOnDuplicate(`Organization ${input.slug}`, () =>
        bus.commit(async (tx, publish) => {
          const [organization] = await tx
            .insert(organizations)
            .values({ id: newId(), slug: input.slug, name: input.name, accountType: input.accountType })
            .returning();
          await onOrganizationCreated?.(tx, organization!);
          const owner = await accountFor(
            tx,
            publish,
            organization!.id,
            input.owner,
            'owner.unverifiedAccount',
            {
              kind: 'admin',
            },
          );
          const [membership] = await tx
            .insert(memberships)
            .values({ organizationId: organization!.id, userId: owner.id, role: 'owner' })
            .returning();
          const extra = await withinTransaction(tx, { organization: organization!, owner });
          return { organization: organization!, owner, membership: membership!, extra };
        }),
      );
    },
  };
}
