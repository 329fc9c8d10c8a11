import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, managementErrors } from '../../http/route-kit.js';
import type { Disconnect } from './disconnect.js';

const id = z.string().min(1).max(64);

export function registerConnectionRoutes(app: App, disconnect: Disconnect): void {
  app.delete('/v1/projects/:projectId/environments/:environmentId/connections/:connectionId', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'deleteConnection',
      summary:
        'Disconnect: revoke the tokens at the provider (RFC 7009, when it can) and delete the connection',
      description:
        'Needs projects:operate on the environment. The encrypted tokens are deleted whatever the provider ' +
        'answers; the audit event connection.deleted records the revocation outcome. Idempotent: an unknown ' +
        'or already deleted connection of the environment also answers 204.',
      tags: ['OAuth'],
      security: bearerSecurity,
      params: z.object({ projectId: id, environmentId: id, connectionId: id }),
      response: {
        204: z.null().meta({ description: 'Disconnected (or already gone): no body' }),
        ...managementErrors(401, 403, 404, 422),
      },
    },
    handler: async (request, reply) => {
      const { projectId, environmentId, connectionId } = request.params;
      await disconnect(requirePrincipal(request), projectId, environmentId, connectionId);
      return reply.code(204).send(null);
    },
  });
}
