import { and, eq, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { environments, projects } from './tenancy.tables.js';

/**
 * Projects and environments by the names people type (docs/organization-api.md, "Names in paths"): a project
 * by its id or its slug, an environment by its id or its name, always within the caller's own organization.
 * An id wins over a slug that happens to equal another project's id. Unknown names resolve to nothing: the
 * route then answers its usual 404 for the value as given (and counts a foreign id as it always did).
 */
export interface PathNameResolver {
  projectId(organizationId: string, idOrSlug: string): Promise<string | undefined>;
  environmentId(projectId: string, idOrName: string): Promise<string | undefined>;
}

export function createPathNameResolver({ db }: Pick<Database, 'db'>): PathNameResolver {
  return {
    async projectId(organizationId, idOrSlug) {
      const [row] = await db
        .select({ id: projects.id })
        .from(projects)
        .where(
          and(
            eq(projects.organizationId, organizationId),
            or(eq(projects.id, idOrSlug), eq(projects.slug, idOrSlug)),
          ),
        )
        .orderBy(sql`${projects.id} = ${idOrSlug} desc`)
        .limit(1);
      return row?.id;
    },
    async environmentId(projectId, idOrName) {
      const [row] = await db
        .select({ id: environments.id })
        .from(environments)
        .where(
          and(
            eq(environments.projectId, projectId),
            or(eq(environments.id, idOrName), eq(environments.name, idOrName)),
          ),
        )
        .orderBy(sql`${environments.id} = ${idOrName} desc`)
        .limit(1);
      return row?.id;
    },
  };
}
