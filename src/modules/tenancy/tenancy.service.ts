import { and, eq, or, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { Change, ChangeBus } from '../../db/change-bus.js';
import type { Database, Executor, Tx } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ApiError, forbidden, notFound } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { isId, newId } from '../../lib/ids.js';
import { hashPassword } from '../../lib/secrets.js';
import type { Actor } from '../auth/index.js';
import { type AccountCredentials, resetAccountCredentials, unprovenAccount } from './account-reset.js';
import { MEMBERSHIP_CHANGED } from './changes.js';
import type { AddMemberInput, CreateOrganizationInput } from './tenancy.schemas.js';
import { agents, environments, memberships, organizations, projects, users } from './tenancy.tables.js';

const DEFAULT_ENVIRONMENTS = ['production', 'development'] as const;

export type Organization = typeof organizations.$inferSelect;
export type User = typeof users.$inferSelect;
export type Project = typeof projects.$inferSelect;
export type Environment = typeof environments.$inferSelect;
export type Agent = typeof agents.$inferSelect;

export interface TenancyServiceDeps {
  database: Database;
  bus: ChangeBus;
  /** Audit events carry the time of the change. */
  clock: Clock;
  /** Runs in the transaction creating an organization (its publish policy from the operator's default). */
  onOrganizationCreated?: (tx: Executor, organization: Organization) => Promise<void>;
  /**
   * Writes an audit event in the change's transaction: the audit trail is built on tenancy (its records
   * belong to organizations), so the composition hands its write in (src/modules/audit, recordAuditEvent).
   */
  recordAudit: (executor: Executor, change: TenancyAuditChange) => Promise<void>;
  /** The sessions and API keys an account reset ends (./account-reset.ts). */
  credentials: AccountCredentials;
}

/** An audited change of tenancy's, as the audit trail records it. */
export interface TenancyAuditChange {
  organizationId: string;
  action: string;
  actor: Actor;
  target: { type: string; id: string };
  at: Date;
  metadata?: Record<string, unknown> | undefined;
}

export type TenancyService = ReturnType<typeof createTenancyService>;

/** Organizations, users, memberships, projects, environments and agents: what the admin API manages. */
export function createTenancyService({
  database,
  bus,
  clock,
  onOrganizationCreated,
  recordAudit: recordAuditEvent,
  credentials,
}: TenancyServiceDeps) {
  const { db } = database;

  async function conflictOnDuplicate<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError('conflict', `${what} already exists`);
      throw error;
    }
  }

  /**
   * The account for an email the operator names (docs/admin-api.md, "Accounts and proven emails"): a new one is
   * proven by the operator's choice; an existing one is reused (one person in several organizations) once its
   * email is proven. An unproven one (made from a copied invitation link) is 409 naming `optionPath`, unless the
   * operator chose `reset`: then whoever set its credentials loses them, and the operator's choice proves it.
   */
  async function accountFor(
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
    await recordAuditEvent(tx, {
      organizationId,
      action: 'user.credentials_reset',
      actor,
      target: { type: 'user', id: existing.id },
      at: now,
      metadata: { email: input.email, reason: 'unproven_email', ...reset },
    });
    return { ...existing, passwordHash: null, emailVerifiedAt: now };
  }

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

  async function getProject(projectId: string): Promise<Project> {
    const [project] = await db.select().from(projects).where(eq(projects.id, projectId));
    if (!project) throw notFound(`Project ${projectId}`);
    return project;
  }

  return {
    getOrganization,
    ownOrganizationId,
    organizationSlug,
    getProject,

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

    async addMember(organizationIdOrSlug: string, input: AddMemberInput, actor: Actor = { kind: 'admin' }) {
      const organization = await getOrganization(organizationIdOrSlug);
      return bus.commit(async (tx, publish) => {
        const user = await accountFor(tx, publish, organization.id, input, 'unverifiedAccount', actor);
        const [membership] = await tx
          .insert(memberships)
          .values({ organizationId: organization.id, userId: user.id, role: input.role })
          .onConflictDoNothing()
          .returning();
        // The caller needs the existing member's id to change their role or give them a key.
        if (!membership)
          throw new ApiError(
            'conflict',
            `${input.email} is already a member of ${organization.slug} (user ${user.id})`,
            [{ path: 'userId', message: user.id }],
          );
        await recordAuditEvent(tx, {
          organizationId: organization.id,
          action: 'membership.created',
          actor,
          target: { type: 'user', id: user.id },
          at: clock.now(),
          metadata: { role: membership.role },
        });
        return { user, membership };
      });
    },

    /** How many members may approve a version (owners and admins). */
    async countApprovers(organizationId: string): Promise<number> {
      const [row] = await db
        .select({ total: sql<number>`count(*)::int` })
        .from(memberships)
        .where(
          and(
            eq(memberships.organizationId, organizationId),
            or(eq(memberships.role, 'owner'), eq(memberships.role, 'admin')),
          ),
        );
      return row?.total ?? 0;
    },

    async getMembership(organizationId: string, userId: string) {
      const [membership] = await db
        .select()
        .from(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)));
      return membership;
    },

    /**
     * Changing a role evicts cached API keys of that user on every instance: the change applies at once.
     * The owner's role changes only by an ownership transfer (an organization always has its one owner).
     */
    async setRole(organizationId: string, userId: string, role: 'admin' | 'member', actor: Actor) {
      await bus.commit(async (tx, publish) => {
        // The organization's row first, as an ownership transfer takes it: the two run one after the other.
        // (Locking the membership first deadlocks with a transfer: this audit insert's foreign key needs a
        // share lock on that row, which the transfer holds while it waits for this membership.)
        await tx
          .select({ id: organizations.id })
          .from(organizations)
          .where(eq(organizations.id, organizationId))
          .for('update');
        const [member] = await tx
          .select({ role: memberships.role })
          .from(memberships)
          .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
          .for('update');
        if (!member) throw notFound(`Member ${userId}`);
        if (member.role === 'owner') {
          throw new ApiError(
            'conflict',
            "The owner's role cannot be changed: transfer the ownership to another member first",
          );
        }
        await tx
          .update(memberships)
          .set({ role })
          .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)));
        await recordAuditEvent(tx, {
          organizationId,
          action: `membership.role_changed_to_${role}`,
          actor,
          target: { type: 'user', id: userId },
          at: clock.now(),
          metadata: { from: member.role, to: role },
        });
        await publish({ topic: MEMBERSHIP_CHANGED, organizationId, userId });
      });
    },

    /**
     * Makes `newOwnerId` (a member) the owner and the previous owner an admin, atomically: the
     * organization's row is locked first, so concurrent transfers run one after the other and exactly one
     * owner remains. Audited; both users' cached keys follow at once. Answers both memberships as this
     * transfer left them (a read after commit could already see a later transfer's).
     *
     * `byOwner` (the management API: the owner transfers): that user must still be the owner when the lock
     * is held; the role their credential carried was read before it, so a transfer that lost the race to
     * another transfer is refused (403) instead of taking the ownership from whoever holds it now.
     */
    async transferOwnership(
      organizationId: string,
      newOwnerId: string,
      actor: Actor,
      options: { byOwner?: string } = {},
    ) {
      return bus.commit(async (tx, publish) => {
        await tx
          .select({ id: organizations.id })
          .from(organizations)
          .where(eq(organizations.id, organizationId))
          .for('update');
        const members = await tx
          .select()
          .from(memberships)
          .where(
            and(
              eq(memberships.organizationId, organizationId),
              or(eq(memberships.role, 'owner'), eq(memberships.userId, newOwnerId)),
            ),
          )
          .for('update');
        const previous = members.find((member) => member.role === 'owner');
        if (!previous) throw new Error(`organization ${organizationId} has no owner`);
        if (options.byOwner !== undefined && previous.userId !== options.byOwner) {
          throw forbidden('Only the owner may transfer the ownership, and you are no longer the owner');
        }
        const next = members.find((member) => member.userId === newOwnerId);
        if (!next) throw notFound(`Member ${newOwnerId}`);
        if (previous.userId === newOwnerId) return { owner: next, previousOwner: next };
        const [demoted] = await tx
          .update(memberships)
          .set({ role: 'admin' })
          .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, previous.userId)))
          .returning();
        const [promoted] = await tx
          .update(memberships)
          .set({ role: 'owner' })
          .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, newOwnerId)))
          .returning();
        await recordAuditEvent(tx, {
          organizationId,
          action: 'organization.ownership_transferred_to',
          actor,
          target: { type: 'user', id: newOwnerId },
          at: clock.now(),
        });
        await recordAuditEvent(tx, {
          organizationId,
          action: 'organization.ownership_transferred_from',
          actor,
          target: { type: 'user', id: previous.userId },
          at: clock.now(),
        });
        for (const userId of [previous.userId, newOwnerId]) {
          await publish({ topic: MEMBERSHIP_CHANGED, organizationId, userId });
        }
        return { owner: promoted!, previousOwner: demoted! };
      });
    },

    async createProject(organizationIdOrSlug: string, input: { slug: string; name: string }) {
      const organization = await getOrganization(organizationIdOrSlug);
      return conflictOnDuplicate(`Project ${input.slug}`, () =>
        db.transaction(async (tx) => {
          const [project] = await tx
            .insert(projects)
            .values({ id: newId(), organizationId: organization.id, slug: input.slug, name: input.name })
            .returning();
          const created = await tx
            .insert(environments)
            .values(
              DEFAULT_ENVIRONMENTS.map((name) => ({
                id: newId(),
                organizationId: organization.id,
                projectId: project!.id,
                name,
              })),
            )
            .returning();
          return { project: project!, environments: created };
        }),
      );
    },

    async createEnvironment(projectId: string, name: string) {
      const project = await getProject(projectId);
      return conflictOnDuplicate(`Environment ${name}`, async () => {
        const [environment] = await db
          .insert(environments)
          .values({ id: newId(), organizationId: project.organizationId, projectId, name })
          .returning();
        return environment!;
      });
    },

    async createAgent(projectId: string, name: string) {
      const project = await getProject(projectId);
      return conflictOnDuplicate(`Agent ${name}`, async () => {
        const [agent] = await db
          .insert(agents)
          .values({ id: newId(), organizationId: project.organizationId, projectId, name })
          .returning();
        return agent!;
      });
    },

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
