import { z } from 'zod';
import { type App, adminSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import type { ReencryptOptions, ReencryptResult } from './key-rotation.js';

const resultSchema = z
  .object({
    integrationVersions: z.number().int().meta({ description: 'client secrets re-encrypted in this run' }),
    connections: z
      .number()
      .int()
      .meta({ description: 'connections whose tokens were re-encrypted in this run' }),
    webhookEndpoints: z
      .number()
      .int()
      .meta({ description: 'webhook endpoints whose signing secrets were re-encrypted in this run' }),
    ssoProviders: z.number().int().meta({
      description: 'identity providers (single sign-on) whose client secret was re-encrypted in this run',
    }),
    unreadable: z.array(z.string()).meta({ description: 'rows no key of the ring opens: skipped, listed' }),
    done: z.boolean().meta({ description: 'true when nothing remains under an older key' }),
  })
  .meta({ id: 'KeyRotationResult' });

/**
 * `cadre admin rotate-encryption-key`: after putting a new key first in CADRE_ENCRYPTION_KEYS on every
 * instance, re-encrypt everything stored under older keys. Resumable: `maxRows` bounds one call, and calling
 * again continues until `done`.
 */
export function registerKeyRotationRoute(
  app: App,
  reencryptAll: (options?: ReencryptOptions) => Promise<ReencryptResult>,
): void {
  app.post('/v1/encryption-keys/rotate', {
    config: { auth: 'admin' },
    schema: {
      operationId: 'adminRotateEncryptionKey',
      summary: 'Re-encrypt stored secrets under the newest key of the ring (resumable)',
      tags: ['Admin'],
      security: adminSecurity,
      body: z
        .object({ maxRows: z.number().int().min(1).max(1_000_000).optional() })
        .strict()
        .optional(),
      response: { 200: dataOf(resultSchema), ...managementErrors(401, 422) },
    },
    handler: async (request) => ({ data: await reencryptAll({ maxRows: request.body?.maxRows }) }),
  });
}
