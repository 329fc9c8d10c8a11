import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { connectionSchema } from './connections.js';
import type { ConnectionsService } from './connections.service.js';
import type { Disconnect } from './disconnect.js';

const id = z.string().min(1).max(64);

/** An environment's connections: listing them and disconnecting one (management face). */
export function registerConnectionRoutes(
  app: App,
  { connections, disconnect }: { connections: ConnectionsService; disconnect: Disconnect },
): void {
  app.get('/v1/projects/:projectId/environments/:environmentId/connections', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'listConnections',
      summary: "List an environment's OAuth connections (never their tokens)",
      tags: ['OAuth'],
      security: bearerSecurity,
      params: z.object({ projectId: id, environmentId: id }),
      response: {
        200: dataOf(z.object({ connections: z.array(connectionSchema) })),
        ...managementErrors(401, 403, 404, 422),
      },
    },
    handler: async (request) => ({
      data: {
        connections: await connections.list(
          requirePrincipal(request),
          request.params.projectId,
          request.params.environmentId,
        ),
      },
    }),
  });

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
