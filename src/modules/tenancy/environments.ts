import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { type Environment, environments } from './tenancy.tables.js';

/**
 * The one lookup of an environment by the ids a path or a flow names: it exists only within its project and its
 * organization, so another organization's id, or one of another project, reads as absent (`undefined`) and each
 * caller answers that as its own 404 or refusal. It reads through the caller's executor, so a caller inside a
 * transaction sees its own writes; `lock: 'share'` holds the row (`FOR SHARE`) until that transaction ends, so a
 * deletion (which locks it `FOR UPDATE`) either finished before or waits for it.
 */
export async function findEnvironment(
  executor: Executor,
  organizationId: string,
  projectId: string,
  environmentId: string,
  options: { lock?: 'share' } = {},
): Promise<Environment | undefined> {
  const query = executor
    .select()
    .from(environments)
    .where(
      and(
        eq(environments.id, environmentId),
        eq(environments.projectId, projectId),
        eq(environments.organizationId, organizationId),
      ),
    );
  const [environment] = await (options.lock ? query.for(options.lock) : query);
  return environment;
}
