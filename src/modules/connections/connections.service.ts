import type { Database } from '../../db/client.js';
import { forbidden, notFound } from '../../http/errors.js';
import { type ForeignResourceGuard, rejectForeignResource } from '../../http/rate-limit/rate-limit.js';
import { can, type Principal } from '../auth/index.js';
import { findEnvironment } from '../tenancy/index.js';
import {
  type ConnectionRecord,
  environmentScope,
  listConnectionRows,
  presentConnection,
} from './connections.js';

export interface ConnectionsServiceDeps {
  database: Database;
  /** Counts requests naming Projects outside the caller's organization (429 past the limit). */
  foreignResources: ForeignResourceGuard;
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;

/** Reading an environment's connections (never their tokens). */
export function createConnectionsService({ database, foreignResources }: ConnectionsServiceDeps) {
  const { db } = database;
  return {
    async list(principal: Principal, projectId: string, environmentId: string): Promise<ConnectionRecord[]> {
      const environment = await findEnvironment(db, principal.organizationId, projectId, environmentId);
      if (!environment) {
        return rejectForeignResource(
          foreignResources,
          principal,
          notFound(`Environment ${environmentId} of project ${projectId}`),
        );
      }
      const scope = environmentScope({ ...environment, environmentId: environment.id });
      if (!can(principal, 'projects:operate', scope)) throw forbidden('Missing permission projects:operate');
      return (await listConnectionRows(db, environment.id)).map(presentConnection);
    },
  };
}
