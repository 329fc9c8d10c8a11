import { z } from 'zod';
import { validationFailed } from '../../http/errors.js';
import { type App, adminSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { tryParseExpertKey } from '../registry/index.js';
import type { TakedownRecord } from './record-changes.js';
import type { RegistryService } from './registry.service.js';

const TAKEDOWN_REASON_MAX_LENGTH = 1000;

const takedownSchema = z
  .object({
    key: z.string().meta({ example: 'writer@1.2.0' }),
    expertId: z.string(),
    organizationId: z.string(),
    reason: z.string(),
    takenDownAt: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'ExpertTakedown' });

const presentTakedown = (record: TakedownRecord) => ({
  key: record.key,
  expertId: record.expertId,
  organizationId: record.organizationId,
  reason: record.reason,
  takenDownAt: record.takenDownAt.toISOString(),
});

/** Operator actions on the registry (docs/registry.md "Takedowns"); registered with the other admin routes. */
export function registerRegistryAdminRoutes(app: App, registry: RegistryService): void {
  app.post('/v1/registry/experts/:expertKey/takedown', {
    config: { auth: 'admin' },
    schema: {
      operationId: 'adminTakedownExpert',
      summary:
        'Take an exact Expert version down: it leaves every read (410 with the reason), even when other Experts delegate to it; audited',
      tags: ['Admin'],
      security: adminSecurity,
      params: z.object({
        expertKey: z.string().meta({
          description: 'Exact version key `[@scope/]name@1.2.3`, URL-encoded (`%40acme%2Fwriter%401.2.3`)',
        }),
      }),
      body: z
        .object({ reason: z.string().trim().min(1).max(TAKEDOWN_REASON_MAX_LENGTH) })
        .strict()
        .meta({ id: 'TakedownExpert' }),
      response: { 200: dataOf(z.object({ takedown: takedownSchema })), ...managementErrors(401, 404, 422) },
    },
    handler: async (request) => {
      const parsed = tryParseExpertKey(request.params.expertKey);
      if (!parsed.ok) throw validationFailed('params.expertKey', parsed.reason);
      const { version } = parsed.key;
      if (version === undefined) {
        throw validationFailed('params.expertKey', 'must name an exact version, like "writer@1.2.0"');
      }
      const record = await registry.takedown({ ...parsed.key, version }, request.body.reason);
      return { data: { takedown: presentTakedown(record) } };
    },
  });
}
