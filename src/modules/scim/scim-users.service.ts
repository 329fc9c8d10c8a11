import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ApiError } from '../../http/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { DomainsService } from '../domains/index.js';
import type { MembersService } from '../members/index.js';
import type { RoleMappingsService } from '../sso/index.js';
import type { TenancyService } from '../tenancy/index.js';
import type { ListQuery, PatchOperation, UserBody } from './scim.schemas.js';
import { scimGroupMembers, scimGroups, scimUsers } from './scim.tables.js';
import {
  booleanOf,
  checkIfMatch,
  etagOf,
  listResponse,
  opName,
  pageOf,
  parseFilter,
  SCHEMA,
  ScimError,
} from './scim-protocol.js';

type UserRow = typeof scimUsers.$inferSelect;
/** What a SCIM User resource keeps (the rest of what providers send is ignored). */
type UserState = Pick<
  UserRow,
  'userName' | 'externalId' | 'displayName' | 'givenName' | 'familyName' | 'active'
>;

export interface ScimUsersDeps {
  database: Database;
  clock: Clock;
  tenancy: Pick<TenancyService, 'addMember' | 'setRole' | 'getMembership'>;
  members: Pick<MembersService, 'deprovision'>;
  domains: Pick<DomainsService, 'verifiedOrganizationFor'>;
  roles: Pick<RoleMappingsService, 'roleFor'>;
  /** `{publicUrl}/scim/v2`: resources' `meta.location`. */
  baseUrl: () => string;
}

export type ScimUsersService = ReturnType<typeof createScimUsersService>;

/** What SCIM changes is recorded as the organization's SCIM provisioning's doing (docs/scim.md). */
const SCIM_ACTOR = { kind: 'scim' } as const;
const isEmail = (value: string) => z.email().safeParse(value).success;

/**
 * SCIM Users (docs/scim.md): a provisioned person is a member of the organization. Creating one adds the
 * account of its email, only at a verified domain of the organization, and never an account whose email was
 * never proven (docs/admin-api.md): that is 409. `active: false` and DELETE deprovision the member through the
 * members service's removal (keys revoked, sessions ended, invitations revoked, on every instance at once).
 */
export function createScimUsersService(deps: ScimUsersDeps) {
  const { database, clock, tenancy, members, domains, roles } = deps;
  const { db } = database;

  async function groupsOf(ids: string[]) {
    if (ids.length === 0) return new Map<string, Array<{ id: string; displayName: string }>>();
    const rows = await db
      .select({ userId: scimGroupMembers.scimUserId, id: scimGroups.id, displayName: scimGroups.displayName })
      .from(scimGroupMembers)
      .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
      .where(inArray(scimGroupMembers.scimUserId, ids));
    const byUser = new Map<string, Array<{ id: string; displayName: string }>>();
    for (const row of rows) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row]);
    return byUser;
  }

  function present(row: UserRow, groups: Array<{ id: string; displayName: string }> = []) {
    const base = deps.baseUrl();
    const name =
      row.givenName || row.familyName
        ? {
            ...(row.givenName ? { givenName: row.givenName } : {}),
            ...(row.familyName ? { familyName: row.familyName } : {}),
          }
        : undefined;
    return {
      schemas: [SCHEMA.user],
      id: row.id,
      ...(row.externalId ? { externalId: row.externalId } : {}),
      userName: row.userName,
      ...(row.displayName ? { displayName: row.displayName } : {}),
      ...(name ? { name } : {}),
      emails: [{ value: row.email, primary: true }],
      active: row.active,
      groups: groups.map((group) => ({
        value: group.id,
        display: group.displayName,
        $ref: `${base}/Groups/${group.id}`,
      })),
      meta: {
        resourceType: 'User',
        created: row.createdAt.toISOString(),
        lastModified: row.updatedAt.toISOString(),
        version: etagOf(row.version),
        location: `${base}/Users/${row.id}`,
      },
    };
  }
  type UserResource = ReturnType<typeof present>;

  async function presentOne(row: UserRow): Promise<UserResource> {
    return present(row, (await groupsOf([row.id])).get(row.id));
  }

  async function find(organizationId: string, id: string): Promise<UserRow> {
    const [row] = await db
      .select()
      .from(scimUsers)
      .where(and(eq(scimUsers.id, id), eq(scimUsers.organizationId, organizationId)));
    if (!row) throw new ScimError(404, `User ${id} not found`);
    return row;
  }

  /** The email a User stands for: its primary email, else its first, else its userName. */
  function emailOf(body: Pick<UserBody, 'emails' | 'userName'>): string {
    const email = (body.emails?.find((each) => each.primary) ?? body.emails?.[0])?.value ?? body.userName;
    if (!isEmail(email))
      throw new ScimError(400, 'The user needs an email address (userName or emails)', 'invalidValue');
    return email.toLowerCase();
  }

  /** The role the person's groups give under the owner's rules (docs/sso.md, "Role mapping"). */
  async function mappedRole(organizationId: string, scimUserId: string | undefined) {
    const names = scimUserId
      ? ((await groupsOf([scimUserId])).get(scimUserId) ?? []).map((g) => g.displayName)
      : [];
    return roles.roleFor(organizationId, names);
  }

  /**
   * Makes the person a member (again): the account of the email, made proven (the organization's verified
   * domain vouches for it) or adopted when proven; an account that never proved its email is refused.
   */
  async function admit(organizationId: string, email: string, name: string | undefined, scimUserId?: string) {
    const role = await mappedRole(organizationId, scimUserId);
    try {
      const { user } = await tenancy.addMember(organizationId, { email, name, role }, SCIM_ACTOR);
      return user.id;
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
      const path = error.details?.[0]?.path;
      // Already a member (invited before provisioning): adopted as they are.
      if (path === 'userId') return error.details![0]!.message;
      if (path === 'unverifiedAccount') {
        throw new ScimError(
          409,
          `An account for ${email} exists but never proved its email; the operator must reset it before it can be provisioned`,
          'uniqueness',
        );
      }
      throw error;
    }
  }

  async function deprovision(row: UserRow) {
    try {
      await members.deprovision(row.organizationId, row.userId, 'scim');
    } catch (error) {
      // Removed by hand already: nothing more to end.
      if (error instanceof ApiError && error.code === 'not_found') return;
      if (error instanceof ApiError && error.code === 'conflict') throw new ScimError(409, error.message);
      throw error;
    }
  }

  /** Writes the new state, moving the membership with `active`; If-Match is checked against the stored version. */
  async function write(row: UserRow, next: UserState, ifMatch: string | undefined): Promise<UserResource> {
    checkIfMatch(ifMatch, row.version);
    if (row.active && !next.active) await deprovision(row);
    if (!row.active && next.active) {
      await admit(row.organizationId, row.email, next.displayName ?? undefined, row.id);
    }
    const [updated] = await db
      .update(scimUsers)
      .set({ ...next, version: row.version + 1, updatedAt: clock.now() })
      .where(and(eq(scimUsers.id, row.id), eq(scimUsers.version, row.version)))
      .returning()
      .catch(uniqueness);
    if (!updated) throw new ScimError(412, 'The resource changed while it was being updated; read it again');
    return presentOne(updated);
  }

  return {
    async create(organizationId: string, body: UserBody): Promise<UserResource> {
      const email = emailOf(body);
      const routed = await domains.verifiedOrganizationFor(email);
      if (routed?.organizationId !== organizationId) {
        throw new ScimError(
          400,
          `${email} is not at a verified domain of this organization: verify the domain first (docs/domains.md)`,
          'invalidValue',
        );
      }
      const [taken] = await db
        .select({ id: scimUsers.id })
        .from(scimUsers)
        .where(
          and(
            eq(scimUsers.organizationId, organizationId),
            sql`lower(${scimUsers.userName}) = lower(${body.userName})`,
          ),
        );
      if (taken) throw new ScimError(409, `A user with userName ${body.userName} exists`, 'uniqueness');
      const userId = await admit(organizationId, email, body.displayName ?? undefined);
      const now = clock.now();
      const [row] = await db
        .insert(scimUsers)
        .values({
          id: newId(),
          organizationId,
          userId,
          email,
          userName: body.userName,
          externalId: body.externalId ?? null,
          displayName: body.displayName ?? null,
          givenName: body.name?.givenName ?? null,
          familyName: body.name?.familyName ?? null,
          active: true,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .catch(uniqueness);
      // Created inactive: provisioned, then deprovisioned at once (it holds no access).
      if (body.active === false) return write(row!, { ...row!, active: false }, undefined);
      return present(row!);
    },

    async get(organizationId: string, id: string) {
      return presentOne(await find(organizationId, id));
    },

    async list(organizationId: string, query: ListQuery) {
      const filter =
        query.filter === undefined ? undefined : parseFilter(query.filter, ['userName', 'externalId']);
      const { startIndex, count: size, offset } = pageOf(query);
      const where = and(
        eq(scimUsers.organizationId, organizationId),
        filter?.attribute === 'userName'
          ? sql`lower(${scimUsers.userName}) = lower(${filter.value})`
          : filter
            ? eq(scimUsers.externalId, filter.value)
            : undefined,
      );
      const [total] = await db.select({ n: count() }).from(scimUsers).where(where);
      const rows =
        size === 0
          ? []
          : await db
              .select()
              .from(scimUsers)
              .where(where)
              .orderBy(asc(scimUsers.createdAt), asc(scimUsers.id))
              .limit(size)
              .offset(offset);
      const groups = await groupsOf(rows.map((row) => row.id));
      return listResponse(
        rows.map((row) => present(row, groups.get(row.id))),
        total?.n ?? 0,
        startIndex,
      );
    },

    /** PUT: the whole resource replaced (what it omits is cleared; `active` omitted stays as it is). */
    async replace(organizationId: string, id: string, body: UserBody, ifMatch: string | undefined) {
      const row = await find(organizationId, id);
      return write(
        row,
        {
          userName: body.userName,
          externalId: body.externalId ?? null,
          displayName: body.displayName ?? null,
          givenName: body.name?.givenName ?? null,
          familyName: body.name?.familyName ?? null,
          active: body.active ?? row.active,
        },
        ifMatch,
      );
    },

    async patch(
      organizationId: string,
      id: string,
      operations: PatchOperation[],
      ifMatch: string | undefined,
    ) {
      const row = await find(organizationId, id);
      const next: UserState = { ...row };
      for (const operation of operations) applyUserOperation(next, operation);
      return write(row, next, ifMatch);
    },

    async remove(organizationId: string, id: string, ifMatch: string | undefined): Promise<void> {
      const row = await find(organizationId, id);
      checkIfMatch(ifMatch, row.version);
      if (row.active) await deprovision(row);
      await db.delete(scimUsers).where(eq(scimUsers.id, row.id));
    },

    /** After a group change: each active member's role as their groups now map it (the owner stays owner). */
    async applyGroupRoles(organizationId: string, scimUserIds: string[]) {
      if (scimUserIds.length === 0) return;
      const rows = await db
        .select()
        .from(scimUsers)
        .where(and(eq(scimUsers.organizationId, organizationId), inArray(scimUsers.id, scimUserIds)));
      for (const row of rows.filter((each) => each.active)) {
        const membership = await tenancy.getMembership(organizationId, row.userId);
        if (!membership || membership.role === 'owner') continue;
        const role = await mappedRole(organizationId, row.id);
        if (membership.role !== role) await tenancy.setRole(organizationId, row.userId, role, SCIM_ACTOR);
      }
    },
  };
}

function uniqueness(error: unknown): never {
  if (isUniqueViolation(error)) throw new ScimError(409, 'A user with this userName exists', 'uniqueness');
  throw error;
}

const STRING_PATHS: Record<string, keyof UserState> = {
  username: 'userName',
  externalid: 'externalId',
  displayname: 'displayName',
  'name.givenname': 'givenName',
  'name.familyname': 'familyName',
};

/** One PATCH operation (RFC 7644 §3.5.2) on the attributes Cadre keeps; others are ignored, as on create. */
function applyUserOperation(state: UserState, operation: PatchOperation): void {
  const op = opName(operation.op);
  const set = (path: string, value: unknown) => {
    const key = path.toLowerCase();
    if (key === 'active') {
      state.active = op === 'remove' ? state.active : booleanOf(value, 'active');
      return;
    }
    if (key === 'name' && value && typeof value === 'object') {
      for (const [part, each] of Object.entries(value)) set(`name.${part}`, each);
      return;
    }
    const field = STRING_PATHS[key];
    if (!field) return;
    if (op === 'remove' || value === null) {
      if (field === 'userName') throw new ScimError(400, 'userName is required', 'mutability');
      state[field] = null as never;
      return;
    }
    if (typeof value !== 'string' || value.length > 256)
      throw new ScimError(400, `${path} must be a string`, 'invalidValue');
    state[field] = value as never;
  };
  if (operation.path !== undefined) {
    set(operation.path, operation.value);
    return;
  }
  if (op === 'remove') throw new ScimError(400, 'A remove needs a path', 'noTarget');
  if (!operation.value || typeof operation.value !== 'object' || Array.isArray(operation.value)) {
    throw new ScimError(400, 'An operation without a path needs an object value', 'invalidValue');
  }
  for (const [path, value] of Object.entries(operation.value)) set(path, value);
}
