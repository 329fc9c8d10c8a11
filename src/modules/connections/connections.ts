import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import type { Scope } from '../auth/index.js';
import { type ConnectionRow, connections } from '../oauth/index.js';

export const connectionSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    projectId: z.string(),
    environmentId: z.string(),
    presetKey: z.string(),
    integrationVersionId: z.string(),
    accountId: z.string(),
    accountLabel: z.string().nullable(),
    scopes: z.array(z.string()),
    status: z.enum(['active', 'needs_reauth']),
    expiresAt: z
      .string()
      .nullable()
      .meta({ description: "When the access token expires (the provider's word)" }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Connection', description: 'Tokens never leave the service through the API.' });
export type ConnectionRecord = z.infer<typeof connectionSchema>;

export function presentConnection(row: ConnectionRow): ConnectionRecord {
  return {
    id: row.id,
    organizationId: row.organizationId,
    projectId: row.projectId,
    environmentId: row.environmentId,
    presetKey: row.presetKey,
    integrationVersionId: row.integrationVersionId,
    accountId: row.accountId,
    accountLabel: row.accountLabel,
    scopes: row.scopes,
    status: row.status,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The permission scope of an environment a connection belongs to (or a flow pins). */
export const environmentScope = (p: {
  organizationId: string;
  projectId: string;
  environmentId: string;
}): Scope => ({
  kind: 'environment',
  organizationId: p.organizationId,
  projectId: p.projectId,
  environmentId: p.environmentId,
});

export async function listConnectionRows(executor: Executor, environmentId: string) {
  return executor
    .select()
    .from(connections)
    .where(eq(connections.environmentId, environmentId))
    .orderBy(asc(connections.presetKey));
}
