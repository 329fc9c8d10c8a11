import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { type App, adminSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import type { TenancyService } from '../tenancy/index.js';
import type { PlanLimits } from './plan-limits.js';
import { COUNTER_KEYS } from './plans.js';

const counter = z.number().int().nonnegative().nullable().describe('null: no limit');
const counters = z.object(
  Object.fromEntries(COUNTER_KEYS.map((key) => [key, counter])) as Record<
    (typeof COUNTER_KEYS)[number],
    typeof counter
  >,
);
const limitsAnswer = z
  .object({
    organizationId: z.string(),
    planKey: z.string(),
    limits: counters,
    overridden: z.array(z.enum(COUNTER_KEYS)),
  })
  .meta({ id: 'OrganizationLimits' });
const overridesBody = z
  .object(
    Object.fromEntries(
      COUNTER_KEYS.map((key) => [key, z.number().int().nonnegative().nullable().optional()]),
    ) as Record<(typeof COUNTER_KEYS)[number], z.ZodOptional<z.ZodNullable<z.ZodNumber>>>,
  )
  .strict()
  .describe(
    'Per counter: a number overrides the plan, null returns to the plan; absent counters are unchanged',
  );

/** Operators' per-organization limits (docs/billing.md, "Plan limits"). */
export function registerLimitsAdminRoutes(
  app: App,
  deps: {
    tenancy: Pick<TenancyService, 'getOrganization'>;
    planLimits: PlanLimits;
    database: Database;
    /** An organization's limits changed: allowances cached from them are read again. */
    onChanged: (organizationId: string) => void;
  },
): void {
  const params = z.object({ org: z.string().min(1).max(64).describe('Organization id or slug') });
  const answer = async (organizationId: string) => {
    const { plan, limits, overridden } = await deps.planLimits.entitlement(deps.database.db, organizationId);
    return { data: { organizationId, planKey: plan.key, limits, overridden } };
  };
  app.get('/v1/organizations/:org/limits', {
    config: { auth: 'admin' },
    schema: {
      operationId: 'adminGetOrganizationLimits',
      summary: "The organization's effective limits: its plan's, with overrides",
      tags: ['Admin'],
      security: adminSecurity,
      params,
      response: { 200: dataOf(limitsAnswer), ...managementErrors(401, 404, 422) },
    },
    handler: async (request) => answer((await deps.tenancy.getOrganization(request.params.org)).id),
  });
  app.put('/v1/organizations/:org/limits', {
    config: { auth: 'admin' },
    schema: {
      operationId: 'adminSetOrganizationLimits',
      summary: "Override the plan's limits for one organization (null returns a counter to the plan)",
      tags: ['Admin'],
      security: adminSecurity,
      params,
      body: overridesBody,
      response: { 200: dataOf(limitsAnswer), ...managementErrors(401, 404, 422) },
    },
    handler: async (request) => {
      const organization = await deps.tenancy.getOrganization(request.params.org);
      await deps.planLimits.setOverrides(deps.database.db, organization.id, request.body);
      deps.onChanged(organization.id);
      return answer(organization.id);
    },
  });
}
