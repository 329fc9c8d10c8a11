import { eq } from 'drizzle-orm';
import { notFound } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { conflictOnDuplicate } from './duplicates.js';
import type { OrganizationsService } from './organizations.service.js';
import type { TenancyServiceDeps } from './tenancy.deps.js';
import { agents, environments, type Project, projects } from './tenancy.tables.js';

const DEFAULT_ENVIRONMENTS = ['production', 'development'] as const;

/** Projects, each created with its default environments, and their environments and agents. */
export function createProjectsService({
  database,
  organizations: { getOrganization },
}: Pick<TenancyServiceDeps, 'database'> & { organizations: Pick<OrganizationsService, 'getOrganization'> }) {
  const { db } = database;

  async function getProject(projectId: string): Promise<Project> {
    const [project] = await db.select().from(projects).where(eq(projects.id, projectId));
    if (!project) throw notFound(`Project ${projectId}`);
    return project;
  }

  return {
    getProject,

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
  };
}
