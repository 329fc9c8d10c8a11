import { eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { recordAuditEvent } from '../audit/index.js';
import { type Principal, requirePermission } from '../auth/index.js';
import type { MappedRole, RoleMappings } from './role-mappings.schemas.js';
import { ssoRoleMappings } from './role-mappings.tables.js';

export interface RoleMappingsDeps {
  database: Database;
  clock: Clock;
}

export type RoleMappingsService = ReturnType<typeof createRoleMappingsService>;

/** Without rules written, everyone the provider sends in is a member. */
const NO_RULES: RoleMappings = { defaultRole: 'member', rules: [] };

/** The rank of a mapped role: a person in several mapped groups gets the highest of their roles. */
const RANK: Record<MappedRole, number> = { member: 0, admin: 1 };

/**
 * The role a person's groups give under `mappings`: the highest role among the rules naming one of the
 * groups, else the default role. Group values are compared exactly (providers send names or ids verbatim).
 */
export function evaluateRoleMappings(mappings: RoleMappings, groups: readonly string[]): MappedRole {
  const held = new Set(groups);
  let role: MappedRole | undefined;
  for (const rule of mappings.rules) {
    if (held.has(rule.group) && (role === undefined || RANK[rule.role] > RANK[role])) role = rule.role;
  }
  return role ?? mappings.defaultRole;
}

/**
 * The owner's group → role rules (docs/sso.md, "Role mapping"): read and replaced as a whole by owners
 * (organization:manage), audited as sso.role_mappings_changed; evaluated at every single sign-on and by SCIM.
 */
export function createRoleMappingsService({ database, clock }: RoleMappingsDeps) {
  const { db } = database;

  async function read(executor: Executor | Database['db'], organizationId: string) {
    const [row] = await executor
      .select()
      .from(ssoRoleMappings)
      .where(eq(ssoRoleMappings.organizationId, organizationId));
    return row;
  }

  const present = (row: Awaited<ReturnType<typeof read>>) => ({
    defaultRole: row?.defaultRole ?? NO_RULES.defaultRole,
    rules: row?.rules ?? NO_RULES.rules,
    updatedAt: row?.updatedAt.toISOString() ?? null,
  });

  return {
    async get(principal: Principal) {
      requirePermission(principal, 'organization:manage');
      return present(await read(db, principal.organizationId));
    },

    async replace(principal: Principal, mappings: RoleMappings) {
      requirePermission(principal, 'organization:manage');
      const at = clock.now();
      const row = await db.transaction(async (tx) => {
        const before = present(await read(tx, principal.organizationId));
        const values = {
          organizationId: principal.organizationId,
          defaultRole: mappings.defaultRole,
          rules: mappings.rules,
          updatedAt: at,
          updatedByUserId: principal.userId,
        };
        const [written] = await tx
          .insert(ssoRoleMappings)
          .values(values)
          .onConflictDoUpdate({ target: ssoRoleMappings.organizationId, set: values })
          .returning();
        await recordAuditEvent(tx, {
          organizationId: principal.organizationId,
          action: 'sso.role_mappings_changed',
          actor: principal,
          target: { type: 'sso_role_mappings', id: principal.organizationId },
          at,
          metadata: {
            from: { defaultRole: before.defaultRole, rules: before.rules },
            to: { defaultRole: mappings.defaultRole, rules: mappings.rules },
          },
        });
        return written;
      });
      return present(row);
    },

    /** The role `groups` give in the organization under its current rules (sign-in and SCIM). */
    async roleFor(organizationId: string, groups: readonly string[]): Promise<MappedRole> {
      const row = await read(db, organizationId);
      return evaluateRoleMappings(row ?? NO_RULES, groups);
    },
  };
}
