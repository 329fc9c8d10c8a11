import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { GroupBody, ListQuery, MemberRef, PatchOperation } from './scim.schemas.js';
import { scimGroupMembers, scimGroups, scimUsers } from './scim.tables.js';
import {
  checkIfMatch,
  etagOf,
  listResponse,
  opName,
  pageOf,
  parseFilter,
  SCHEMA,
  ScimError,
} from './scim-protocol.js';
import type { ScimUsersService } from './scim-users.service.js';

type GroupRow = typeof scimGroups.$inferSelect;

export interface ScimGroupsDeps {
  database: Database;
  clock: Clock;
  users: Pick<ScimUsersService, 'applyGroupRoles'>;
  baseUrl: () => string;
}

export type ScimGroupsService = ReturnType<typeof createScimGroupsService>;

/**
 * SCIM Groups (docs/scim.md): named sets of provisioned users. A group's displayName is what the owner's
 * role-mapping rules name (docs/sso.md), so every change of a group's members (or its name, or its deletion)
 * re-evaluates the roles of the people it touches.
 */
export function createScimGroupsService(deps: ScimGroupsDeps) {
  const { database, clock, users } = deps;
  const { db } = database;

  async function membersOf(groupIds: string[]) {
    const byGroup = new Map<string, Array<{ id: string; userName: string }>>();
    if (groupIds.length === 0) return byGroup;
    const rows = await db
      .select({ groupId: scimGroupMembers.groupId, id: scimUsers.id, userName: scimUsers.userName })
      .from(scimGroupMembers)
      .innerJoin(scimUsers, eq(scimUsers.id, scimGroupMembers.scimUserId))
      .where(inArray(scimGroupMembers.groupId, groupIds));
    for (const row of rows) byGroup.set(row.groupId, [...(byGroup.get(row.groupId) ?? []), row]);
    return byGroup;
  }

  function present(row: GroupRow, members: Array<{ id: string; userName: string }> = []) {
    const base = deps.baseUrl();
    return {
      schemas: [SCHEMA.group],
      id: row.id,
      displayName: row.displayName,
      ...(row.externalId ? { externalId: row.externalId } : {}),
      members: members.map((member) => ({
        value: member.id,
        display: member.userName,
        $ref: `${base}/Users/${member.id}`,
      })),
      meta: {
        resourceType: 'Group',
        created: row.createdAt.toISOString(),
        lastModified: row.updatedAt.toISOString(),
        version: etagOf(row.version),
        location: `${base}/Groups/${row.id}`,
      },
    };
  }

  async function presentOne(row: GroupRow) {
    return present(row, (await membersOf([row.id])).get(row.id));
  }

  async function find(organizationId: string, id: string): Promise<GroupRow> {
    const [row] = await db
      .select()
      .from(scimGroups)
      .where(and(eq(scimGroups.id, id), eq(scimGroups.organizationId, organizationId)));
    if (!row) throw new ScimError(404, `Group ${id} not found`);
    return row;
  }

  /** The organization's own provisioned users among `refs`; any other value is 400 (never another organization's). */
  async function usersNamed(organizationId: string, refs: MemberRef[]): Promise<string[]> {
    const ids = [...new Set(refs.map((ref) => ref.value))];
    if (ids.length === 0) return [];
    const found = await db
      .select({ id: scimUsers.id })
      .from(scimUsers)
      .where(and(eq(scimUsers.organizationId, organizationId), inArray(scimUsers.id, ids)));
    const known = new Set(found.map((row) => row.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) throw new ScimError(400, `No such user: ${unknown.join(', ')}`, 'invalidValue');
    return ids;
  }

  const uniqueness = (error: unknown): never => {
    if (isUniqueViolation(error))
      throw new ScimError(409, 'A group with this displayName exists', 'uniqueness');
    throw error;
  };

  return {
    async create(organizationId: string, body: GroupBody) {
      const memberIds = await usersNamed(organizationId, body.members ?? []);
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        const [created] = await tx
          .insert(scimGroups)
          .values({
            id: newId(),
            organizationId,
            displayName: body.displayName,
            externalId: body.externalId ?? null,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
          .catch(uniqueness);
        if (memberIds.length > 0) {
          await tx
            .insert(scimGroupMembers)
            .values(memberIds.map((scimUserId) => ({ groupId: created!.id, scimUserId })));
        }
        return created!;
      });
      await users.applyGroupRoles(organizationId, memberIds);
      return presentOne(row);
    },

    async get(organizationId: string, id: string) {
      return presentOne(await find(organizationId, id));
    },

    async list(organizationId: string, query: ListQuery) {
      const filter =
        query.filter === undefined ? undefined : parseFilter(query.filter, ['displayName', 'externalId']);
      const { startIndex, count: size, offset } = pageOf(query);
      const where = and(
        eq(scimGroups.organizationId, organizationId),
        filter?.attribute === 'displayName'
          ? eq(scimGroups.displayName, filter.value)
          : filter
            ? eq(scimGroups.externalId, filter.value)
            : undefined,
      );
      const [total] = await db.select({ n: count() }).from(scimGroups).where(where);
      const rows =
        size === 0
          ? []
          : await db
              .select()
              .from(scimGroups)
              .where(where)
              .orderBy(asc(scimGroups.createdAt), asc(scimGroups.id))
              .limit(size)
              .offset(offset);
      const members = await membersOf(rows.map((row) => row.id));
      return listResponse(
        rows.map((row) => present(row, members.get(row.id))),
        total?.n ?? 0,
        startIndex,
      );
    },

    /**
     * PATCH (RFC 7644 §3.5.2): `members` added, removed (by a `members[value eq "…"]` path, or a value list as
     * Entra ID sends it) or replaced; `displayName` replaced. Every touched person's role is re-evaluated.
     */
    async patch(
      organizationId: string,
      id: string,
      operations: PatchOperation[],
      ifMatch: string | undefined,
    ) {
      const row = await find(organizationId, id);
      checkIfMatch(ifMatch, row.version);
      const current = new Set(((await membersOf([row.id])).get(row.id) ?? []).map((member) => member.id));
      const before = new Set(current);
      let displayName = row.displayName;
      let externalId = row.externalId;
      for (const operation of operations) {
        const op = opName(operation.op);
        const path = operation.path?.trim();
        const filtered = path && /^members\[\s*value\s+eq\s+"([^"]+)"\s*\]$/i.exec(path);
        if (filtered) {
          if (op !== 'remove')
            throw new ScimError(400, `${op} on a filtered members path is not supported`, 'invalidPath');
          current.delete(filtered[1]!);
          continue;
        }
        const values =
          path === undefined &&
          operation.value &&
          typeof operation.value === 'object' &&
          !Array.isArray(operation.value)
            ? (operation.value as Record<string, unknown>)
            : path !== undefined
              ? { [path]: operation.value }
              : undefined;
        if (!values)
          throw new ScimError(400, 'An operation without a path needs an object value', 'invalidValue');
        for (const [attribute, value] of Object.entries(values)) {
          const key = attribute.toLowerCase();
          if (key === 'members') {
            const refs = value === undefined || value === null ? [] : asRefs(value);
            const ids = await usersNamed(organizationId, refs);
            if (op === 'add') for (const each of ids) current.add(each);
            else if (op === 'replace') {
              current.clear();
              for (const each of ids) current.add(each);
            } else if (refs.length === 0) current.clear();
            else for (const each of ids) current.delete(each);
          } else if (key === 'displayname') {
            if (typeof value !== 'string' || value.trim() === '' || op === 'remove')
              throw new ScimError(400, 'displayName must be a non-empty string', 'invalidValue');
            displayName = value.trim();
          } else if (key === 'externalid') {
            externalId = op === 'remove' || typeof value !== 'string' ? null : value;
          }
          // Other attributes (an `id` sent back, extensions) are not Cadre's: ignored.
        }
      }
      const added = [...current].filter((each) => !before.has(each));
      const removed = [...before].filter((each) => !current.has(each));
      const updated = await db.transaction(async (tx) => {
        const [written] = await tx
          .update(scimGroups)
          .set({ displayName, externalId, version: row.version + 1, updatedAt: clock.now() })
          .where(and(eq(scimGroups.id, row.id), eq(scimGroups.version, row.version)))
          .returning()
          .catch(uniqueness);
        if (!written) throw new ScimError(412, 'The group changed while it was being updated; read it again');
        if (removed.length > 0) {
          await tx
            .delete(scimGroupMembers)
            .where(and(eq(scimGroupMembers.groupId, row.id), inArray(scimGroupMembers.scimUserId, removed)));
        }
        if (added.length > 0) {
          await tx
            .insert(scimGroupMembers)
            .values(added.map((scimUserId) => ({ groupId: row.id, scimUserId })));
        }
        return written;
      });
      // A rename changes what the rules see for every member.
      const touched =
        displayName === row.displayName ? [...added, ...removed] : [...new Set([...before, ...current])];
      await users.applyGroupRoles(organizationId, touched);
      return presentOne(updated);
    },

    async remove(organizationId: string, id: string, ifMatch: string | undefined): Promise<void> {
      const row = await find(organizationId, id);
      checkIfMatch(ifMatch, row.version);
      const members = ((await membersOf([row.id])).get(row.id) ?? []).map((member) => member.id);
      await db.delete(scimGroups).where(eq(scimGroups.id, row.id));
      await users.applyGroupRoles(organizationId, members);
    },
  };
}

function asRefs(value: unknown): MemberRef[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((each) => {
    if (!each || typeof each !== 'object' || typeof (each as MemberRef).value !== 'string')
      throw new ScimError(400, 'members must be a list of { "value": "<user id>" }', 'invalidValue');
    return each as MemberRef;
  });
}
