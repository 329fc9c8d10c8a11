import { z } from 'zod';
import { paginationSchema } from '../api-keys/api-keys.schemas.js';

const auditEventSchema = z
  .object({
    id: z.string(),
    action: z.string().meta({ example: 'connection.deleted' }),
    actor: z
      .object({
        kind: z.enum(['apiKey', 'session', 'admin', 'system']),
        userId: z.string().nullable(),
        apiKeyId: z.string().nullable(),
      })
      .meta({
        description:
          'apiKey or session: a member (userId) through an API key (apiKeyId) or a console session; admin: ' +
          "the operator; system: Cadre applying a payment provider's report (userId: who opened its page, if known)",
      }),
    target: z.object({ type: z.string(), id: z.string() }),
    metadata: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'Details of the change; their shape depends on the action.' }),
    createdAt: z.iso.datetime().meta({ example: '2026-01-01T00:00:00.000Z' }),
  })
  .meta({ id: 'AuditEvent' });
export type AuditEventRecord = z.infer<typeof auditEventSchema>;

export const listAuditEventsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().min(1).max(512).optional(),
    action: z.string().min(1).max(100).optional().meta({ description: 'Only events of this action' }),
    actor: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'Only events performed by this user id or through this API key id' }),
  })
  .strict();
export type ListAuditEventsQuery = z.infer<typeof listAuditEventsQuery>;

export const auditEventListSchema = z.object({
  data: z.array(auditEventSchema),
  pagination: paginationSchema,
});
