import { ApiError, notFound } from '../../http/errors.js';
import { type Principal, requirePermission } from '../auth/index.js';
import type { Organization, TenancyService } from '../tenancy/index.js';

/** The caller's own organization by id or slug, then the permission; any other organization reads as absent. */
export async function manageableOrganization(
  tenancy: Pick<TenancyService, 'getOrganization'>,
  principal: Principal,
  idOrSlug: string,
): Promise<Organization> {
  const organization = await tenancy.getOrganization(idOrSlug).catch((error: unknown) => {
    if (error instanceof ApiError && error.code === 'not_found') return undefined;
    throw error;
  });
  if (!organization || organization.id !== principal.organizationId)
    throw notFound(`Organization ${idOrSlug}`);
  requirePermission(principal, 'members:manage', { kind: 'organization', organizationId: organization.id });
  return organization;
}
