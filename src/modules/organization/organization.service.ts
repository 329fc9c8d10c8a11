import type { Database } from '../../db/client.js';
import { ApiError, forbidden, notFound } from '../../http/errors.js';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../http/keyset-cursor.js';
import { cursorPage } from '../../lib/page.js';
import {
  can,
  PERMISSIONS,
  type Permission,
  type Principal,
  ROLE_PERMISSIONS,
  type Scope,
} from '../auth/index.js';
import type { IntegrationsService } from '../integrations/index.js';
import type { TenancyService } from '../tenancy/index.js';
import { apiKeyStart, createOrganizationReads, projectIdsOf } from './organization.repo.js';
import type { Me, MemberRecord, PageQuery, ProjectRecord } from './organization.schemas.js';

export interface OrganizationServiceDeps {
  database: Database;
  tenancy: Pick<TenancyService, 'getOrganization' | 'ownOrganizationId' | 'getUser'>;
  integrations: Pick<IntegrationsService, 'list'>;
  /**
   * When each member last signed in to the console (a member's last activity, with their keys' last use):
   * a port the sessions module implements.
   */
  sessions: { lastSignIns(organizationId: string, userIds: string[]): Promise<Map<string, Date>> };
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;

type ProjectRow = Pick<
  NonNullable<Awaited<ReturnType<ReturnType<typeof createOrganizationReads>['findProject']>>>,
  'id' | 'slug' | 'name' | 'createdAt'
>;

/**
 * What members see of their own organization (docs/organization-api.md): who they are, its members, its
 * projects with their environments and agents (as far as the credential's grant reaches), its integrations.
 */
export function createOrganizationService({
  database,
  tenancy,
  integrations,
  sessions,
}: OrganizationServiceDeps) {
  const { db } = database;
  const reads = createOrganizationReads(database);

  /** The caller's own organization by id or slug; any other (known or not) reads as absent. */
  async function ownOrganization(principal: Principal, idOrSlug: string) {
    const organization = await tenancy.getOrganization(idOrSlug).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'not_found') return undefined;
      throw error;
    });
    if (!organization || organization.id !== principal.organizationId)
      throw notFound(`Organization ${idOrSlug}`);
    return organization;
  }

  function require(principal: Principal, permission: Permission, scope: Scope) {
    if (!can(principal, permission, scope)) throw forbidden(`Missing permission ${permission}`);
  }

  /** A page of rows ordered by (created_at, id), as the answer's `{ data, pagination }`. */
  function page<Row extends { micros: string }, Item>(
    rows: Row[],
    query: PageQuery,
    idOf: (row: Row) => string,
    present: (row: Row) => Item,
  ) {
    const { items, pagination } = cursorPage(
      rows,
      query.limit,
      (last) => encodeKeysetCursor({ micros: last.micros, id: idOf(last) }),
      present,
    );
    return { data: items, pagination };
  }

  /** The projects a credential may read at all: every one for organization-wide rights, else its grant's. */
  async function readableProjectIds(principal: Principal): Promise<string[] | undefined> {
    const organizationScope = { kind: 'organization', organizationId: principal.organizationId } as const;
    if (can(principal, 'projects:read', organizationScope)) return undefined;
    if (principal.kind !== 'apiKey' || !ROLE_PERMISSIONS[principal.role].has('projects:read')) return [];
    const grant = principal.grants;
    if (!(grant.permissions as string[]).includes('projects:read')) return [];
    if (grant.type === 'project') return grant.projectIds;
    if (grant.type === 'environment') return projectIdsOf(db, grant.environmentIds, []);
    return [];
  }

  async function presentProjects(principal: Principal, rows: ProjectRow[]): Promise<ProjectRecord[]> {
    const parts = await reads.projectParts(rows.map((row) => row.id));
    const organizationId = principal.organizationId;
    return rows.map((project) => ({
      id: project.id,
      slug: project.slug,
      name: project.name,
      createdAt: project.createdAt.toISOString(),
      environments: parts.environments
        .filter((e) => e.projectId === project.id)
        .filter((e) =>
          can(principal, 'projects:read', {
            kind: 'environment',
            organizationId,
            projectId: project.id,
            environmentId: e.id,
          }),
        )
        .map((e) => ({ id: e.id, name: e.name, createdAt: e.createdAt.toISOString() })),
      agents: parts.agents
        .filter((a) => a.projectId === project.id)
        .filter((a) =>
          can(principal, 'projects:read', {
            kind: 'agent',
            organizationId,
            projectId: project.id,
            agentId: a.id,
          }),
        )
        .map((a) => ({ id: a.id, name: a.name, createdAt: a.createdAt.toISOString() })),
    }));
  }

  return {
    ownOrganization,

    async me(principal: Principal): Promise<Me> {
      const [user, organization] = await Promise.all([
        tenancy.getUser(principal.userId),
        tenancy.getOrganization(principal.organizationId),
      ]);
      const role = ROLE_PERMISSIONS[principal.role];
      const granted =
        principal.kind === 'session' ||
        (principal.grants.type === 'organization' && principal.grants.permissions.includes('*'))
          ? PERMISSIONS
          : (principal.grants.permissions as Permission[]);
      const start = principal.kind === 'apiKey' ? await apiKeyStart(db, principal.apiKeyId) : undefined;
      return {
        user: { id: user.id, email: user.email, name: user.name },
        organization: {
          id: organization.id,
          slug: organization.slug,
          name: organization.name,
          accountType: organization.accountType,
        },
        role: principal.role,
        permissions: PERMISSIONS.filter((permission) => role.has(permission) && granted.includes(permission)),
        grants: principal.kind === 'apiKey' ? principal.grants : null,
        authentication:
          principal.kind === 'apiKey'
            ? { kind: 'apiKey', apiKeyId: principal.apiKeyId, start: start ?? '' }
            : { kind: 'session' },
      };
    },

    async members(principal: Principal, organizationIdOrSlug: string, query: PageQuery) {
      const organizationId = await tenancy.ownOrganizationId(principal, organizationIdOrSlug);
      const scope = { kind: 'organization', organizationId } as const;
      require(principal, 'members:read', scope);
      // As on GitHub: everyone sees names and roles; emails only owners and admins (and each their own).
      const seesEmails = principal.role === 'owner' || principal.role === 'admin';
      const rows = await reads.memberPage({
        organizationId,
        limit: query.limit + 1,
        position: query.cursor ? decodeKeysetCursor(query.cursor) : undefined,
      });
      // When each was last active, for those who see it (as emails): owners and admins, and each for themselves.
      const seen = rows.slice(0, query.limit).map((row) => row.userId);
      const shown = seesEmails ? seen : seen.filter((userId) => userId === principal.userId);
      const [signIns, keyUses] = await Promise.all([
        sessions.lastSignIns(organizationId, shown),
        reads.lastKeyUses(organizationId, shown),
      ]);
      const lastActive = (userId: string) => {
        const times = [signIns.get(userId), keyUses.get(userId)].filter((at): at is Date => at !== undefined);
        return times.length === 0
          ? null
          : new Date(Math.max(...times.map((at) => at.getTime()))).toISOString();
      };
      return page(
        rows,
        query,
        (row) => row.userId,
        (row): MemberRecord => ({
          userId: row.userId,
          name: row.name,
          email: seesEmails || row.userId === principal.userId ? row.email : null,
          role: row.role,
          joinedAt: row.createdAt.toISOString(),
          lastActiveAt: lastActive(row.userId),
        }),
      );
    },

    async projects(principal: Principal, query: PageQuery) {
      const only = await readableProjectIds(principal);
      if (only?.length === 0) {
        // Not a single project readable: a credential without projects:read at all is refused.
        require(principal, 'projects:read', {
          kind: 'organization',
          organizationId: principal.organizationId,
        });
      }
      const rows = await reads.projectPage({
        organizationId: principal.organizationId,
        limit: query.limit + 1,
        position: query.cursor ? decodeKeysetCursor(query.cursor) : undefined,
        only,
      });
      const shown = await presentProjects(principal, rows.slice(0, query.limit));
      const byId = new Map(shown.map((project) => [project.id, project]));
      return page(
        rows,
        query,
        (row) => row.id,
        (row) => byId.get(row.id)!,
      );
    },

    async project(principal: Principal, projectId: string) {
      const only = await readableProjectIds(principal);
      if (only?.length === 0) {
        require(principal, 'projects:read', {
          kind: 'organization',
          organizationId: principal.organizationId,
        });
      }
      const row = await reads.findProject(principal.organizationId, projectId);
      // Another organization's project, and one the grant does not reach, read as absent.
      if (!row || (only && !only.includes(row.id))) throw notFound(`Project ${projectId}`);
      const [project] = await presentProjects(principal, [row]);
      return { data: project! };
    },

    async integrations(principal: Principal, organizationIdOrSlug: string) {
      const organizationId = await tenancy.ownOrganizationId(principal, organizationIdOrSlug);
      require(principal, 'integrations:read', { kind: 'organization', organizationId });
      return { data: await integrations.list(organizationId) };
    },
  };
}
